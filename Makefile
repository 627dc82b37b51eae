# Lockstep: the two commands a developer needs.
#   make serve   builds and serves the app on http://127.0.0.1:8080
#   make test    runs every check (the same command CI runs)
SHELL := /bin/bash
export PATH := $(HOME)/.cargo/bin:$(PATH)
export CHROMEDRIVER ?= /usr/bin/chromedriver
WASM := --target wasm32-unknown-unknown

.PHONY: setup serve test fmt lint test-native test-browser oracle bundle build fuzz e2e screenshot firstload builtins package

# make fuzz FUZZ_SECONDS=900   runs every cargo-fuzz target for that long (default 60 s each)
FUZZ_SECONDS ?= 60

setup:
	@bash scripts/setup.sh

# The release build, prerendered (scripts/prerender.sh), served as a static site. For a
# live-reloading dev server without the prerendered first page: `trunk serve`.
serve: build
	@echo ""
	@echo "  Lockstep is served at  http://127.0.0.1:8080  (Ctrl-C stops it)"
	@echo ""
	node e2e/serve.mjs dist 8080

build: setup
	bash scripts/trunk.sh build --release
	bash scripts/prerender.sh dist
	node scripts/precompress.mjs dist

# The lesson as packages a learning platform imports (SCORM 1.2, SCORM 2004, cmi5), in
# packages/ (docs/lms.md). Choices go in PACKAGE_ARGS, e.g.
#   make package PACKAGE_ARGS="--lang nb --sections 1-7,12 --pass-quiz 80 --pass-labs safe-release"
package: build
	cargo run --release --bin lockstep -- package dist --out packages $(PACKAGE_ARGS)

fmt:
	cargo fmt --all -- --check

# After editing scenarios/*.toml or labs/*/*.toml (or a type they are read into): writes
# src/builtins.wire, the validated built-ins in the form the page reads (src/builtins.rs).
# `make test` fails while the file is not current.
builtins:
	LOCKSTEP_WRITE_BUILTINS=1 cargo test --lib builtins::tests::the_builtins_file_is_current

lint:
	cargo clippy --all-targets -- -D warnings
	cargo clippy --lib --bins --test 'web_*' $(WASM) -- -D warnings
	cargo clippy --no-default-features --lib --bin app $(WASM) -- -D warnings
	cargo clippy --no-default-features --features page-engine --lib --bin engine $(WASM) -- -D warnings

test-native:
	cargo test

test-browser:
	bash scripts/web-engine.sh
	cargo test $(WASM) --test 'web_*'
	env -u CHROMEDRIVER GECKODRIVER=$$(command -v geckodriver) cargo test $(WASM) --test 'web_*'

oracle:
	bash scripts/oracle.sh

fuzz: setup
	bash scripts/fuzz.sh $(FUZZ_SECONDS)

e2e: build
	bash scripts/e2e.sh

# docs/timeline.png, drawn by the end-to-end script
screenshot: build
	bash scripts/e2e.sh --only screenshot

bundle: build
	bash scripts/bundle-size.sh dist

# What the first page downloads, and the first use, in Chromium.
firstload: build
	bash scripts/firstload.sh

test: setup
	@bash scripts/test-all.sh
