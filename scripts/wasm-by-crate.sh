#!/usr/bin/env bash
# What the page's and the engine's wasm modules are made of, by crate (and by top-level
# module of ours), and how much of the engine's code the page's module holds too: the
# measurement #37 asks for before the modules are redrawn (BENCHMARKS.md, "What the modules are made of").
#
# Builds the two binaries as scripts/trunk.sh does (release, its toolchain and flags, the
# same features) but with their function names kept (target/by-crate), reads them with
# twiggy (installed with cargo on first use), and sums each function's own bytes by the
# crate its name starts with (`<T as Trait>::f` counts as T's). The figures are raw bytes
# of code and data before wasm-bindgen, not gzip: compare shares, not totals.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v twiggy >/dev/null || cargo install twiggy --locked --version 0.8.0
# shellcheck source=scripts/lib.sh
source scripts/lib.sh
export CARGO_TARGET_DIR=target/by-crate CARGO_PROFILE_RELEASE_STRIP=false
ship_env
wasm=(--release --target wasm32-unknown-unknown --no-default-features)
cargo build -q "${wasm[@]}" --bin app
cargo build -q "${wasm[@]}" --features page-engine --bin engine
out=$CARGO_TARGET_DIR/wasm32-unknown-unknown/release
for m in app engine; do
  twiggy top -n 1000000 --format csv "$out/$m.wasm" >"$out/$m.csv"
done
python3 - "$out" <<'EOF'
import collections, csv, re, sys

def crate_of(name):
    name = name.strip()
    if name.startswith('<'):
        depth, i = 0, 1
        while i < len(name) and not (name[i] == '>' and depth == 0):
            depth += {'<': 1, '>': -1}.get(name[i], 0)
            i += 1
        inner = name[1:i].split(' as ')[0].replace('mut ', '').replace('dyn ', '').lstrip('&*[(').strip()
        return crate_of(inner) if inner else '(other)'
    m = re.match(r'([A-Za-z_]\w*)(?:\[\w+\])?(?:::([A-Za-z_]\w*))?', name)
    if not m:
        return '(other)'
    if m.group(1) == 'lockstep' and m.group(2):
        return 'lockstep::' + m.group(2)
    return 'std' if m.group(1) in ('alloc', 'core', 'std') else m.group(1)

def read(module):
    sizes = {}
    for row in csv.DictReader(open(f'{sys.argv[1]}/{module}.csv')):
        name = row['Name']
        # Custom sections and the exports wasm-bindgen reads and removes do not ship.
        if name.startswith(('custom section', 'export ')) or 'subsection' in name or '__wbindgen_describe' in name:
            continue
        sizes[name] = sizes.get(name, 0) + int(row['ShallowSize'])
    return sizes

page = read('app')
for module in ('app', 'engine'):
    sizes = read(module)
    total = sum(sizes.values())
    by = collections.Counter()
    for name, size in sizes.items():
        if name.startswith('data segment'):
            by['(data)'] += size
        elif re.match(r'(code|type|elem|table|import|export|global)\[', name):
            by['(unnamed)'] += size
        else:
            by[crate_of(name)] += size
    named = sum(s for n, s in sizes.items() if not n.startswith(('data segment', 'code[')))
    shared = sum(s for n, s in sizes.items() if n in page and not n.startswith(('data segment', 'code[')))
    print(f'{module}: {total} bytes; of its named code, {100 * shared / max(named, 1):.0f} % is also in the page\'s module')
    for name, size in by.most_common(14):
        print(f'  {size:9d} {100 * size / total:5.1f} %  {name}')
EOF
