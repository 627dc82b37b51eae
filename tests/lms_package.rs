//! `lockstep package` (src/lms): the instructor's choices checked against the lesson, and
//! the zips it writes (the manifests, the launch page, the app's files made relative).
//! What a platform then records is tested in Chromium by e2e/lms.mjs.

use lockstep::lms::{self, Format, Request};
use std::io::Read;
use std::path::{Path, PathBuf};

fn req(f: impl FnOnce(&mut Request)) -> Request {
    let mut r = Request {
        format: "all".into(),
        lang: "en".into(),
        ..Request::default()
    };
    f(&mut r);
    r
}

fn err(f: impl FnOnce(&mut Request)) -> String {
    lms::plan(&req(f)).expect_err("a mistake")
}

#[test]
fn each_wrong_choice_is_named_with_its_option() {
    assert_eq!(
        err(|r| r.format = "xapi".into()),
        "--format: `xapi` is not scorm12, scorm2004, cmi5 or all"
    );
    assert_eq!(err(|r| r.lang = "de".into()), "--lang: `de` is not en or nb");
    assert_eq!(
        err(|r| r.sections = Some("1,13".into())),
        "--sections: the lesson has no section 13 (it has 12)"
    );
    assert_eq!(
        err(|r| r.sections = Some("5-3".into())),
        "--sections: `5-3` is not a section number or a range like 3-5"
    );
    assert_eq!(
        err(|r| r.sections = Some(" , ".into())),
        "--sections: no section named"
    );
    assert_eq!(
        err(|r| {
            r.sections = Some("1".into());
            r.pass_labs = Some("safe-release".into());
        }),
        "--pass-labs: no lab `safe-release` in the included sections (their labs: none)"
    );
    assert_eq!(
        err(|r| r.pass_quiz = Some("101".into())),
        "--pass-quiz: `101` is not a whole percent from 0 to 100"
    );
    assert_eq!(
        err(|r| {
            r.sections = Some("1-11".into());
            r.pass_quiz = Some("80".into());
        }),
        "--pass-quiz: the quick check is in section 12, which --sections leaves out"
    );
    let pack = err(|r| r.pack = Some("packs/broken".into()));
    assert!(pack.starts_with("--pack: the pack has mistakes:\n"), "{pack}");
    assert!(
        pack.contains("packs/broken/"),
        "the pack's mistakes name their files: {pack}"
    );
}

#[test]
fn a_plan_holds_the_chosen_sections_their_labs_and_the_rule() {
    let plan = lms::plan(&req(|r| {
        r.sections = Some("12, 1-3".into());
        r.lang = "nb".into();
        r.pass_quiz = Some("80%".into());
        r.pass_labs = Some("safe-release".into());
    }))
    .unwrap();
    assert_eq!(plan.formats, Format::ALL.to_vec());
    let orders: Vec<u32> = plan.sections.iter().map(|s| s.order).collect();
    assert_eq!(orders, [1, 2, 3, 12], "in the lesson's order, each once");
    assert_eq!(plan.sections[2].id, "safe-release");
    assert_eq!(
        plan.labs,
        ["set-nx", "safe-release"],
        "§2's and §3's labs, none from the sections left out"
    );
    assert_eq!(plan.pass_quiz, Some(0.8));
    assert!(plan.quick_check && plan.has_rule());
    assert_eq!(plan.title, "Lockstep: distribuerte låser og Redlock");
    assert_eq!(plan.course, "urn:lockstep:distributed-locks:nb:1.2.3.12");

    let config: serde_json::Value = serde_json::from_str(&plan.config_json(Format::Cmi5)).unwrap();
    assert_eq!(config["format"], "cmi5");
    assert_eq!(config["lesson"], "distributed-locks");
    assert_eq!(config["lang"], "nb");
    assert_eq!(config["passQuiz"], 0.8);
    assert_eq!(config["passLabs"][0], "safe-release");
    assert_eq!(config["sections"].as_array().unwrap().len(), 4);
    assert_eq!(config["quickCheck"], true);

    let manifest = |p: &lms::Plan| lms::manifest::manifest(p, Format::Scorm12, &[]).1;
    assert!(manifest(&plan).contains("<manifest identifier=\"lockstep-distributed-locks-nb-1.2.3.12\""));
    let fewer = lms::plan(&req(|r| {
        r.sections = Some("1-3".into());
        r.lang = "nb".into();
    }))
    .unwrap();
    assert!(
        manifest(&fewer).contains("<manifest identifier=\"lockstep-distributed-locks-nb-1.2.3\""),
        "other sections, another package: a platform must not take it as an update of the first"
    );

    let whole = lms::plan(&req(|_| {})).unwrap();
    assert_eq!(whole.sections.len(), 12);
    assert_eq!(whole.labs.len(), 6, "every lab of the lesson");
    assert!(!whole.has_rule() && whole.pass_quiz.is_none());
}

#[test]
fn the_launch_page_carries_its_configuration_and_no_markup_from_a_title() {
    let plan = lms::plan(&req(|r| r.title = Some("Locks </script><b>& more".into()))).unwrap();
    let html = plan.launch_html(Format::Scorm12);
    assert!(
        html.contains("<title>Locks &lt;/script&gt;&lt;b&gt;&amp; more</title>"),
        "{html}"
    );
    let start = html.find("type=\"application/json\">").unwrap() + "type=\"application/json\">".len();
    let end = start + html[start..].find("</script>").unwrap();
    let config: serde_json::Value =
        serde_json::from_str(&html[start..end]).expect("the whole configuration, unbroken");
    assert_eq!(config["title"], "Locks </script><b>& more");
    assert_eq!(config["format"], "scorm12");
    assert!(html.contains("<html lang=\"en\">") && html.contains("<script src=\"lms.js\" defer>"));
}

#[test]
fn the_page_names_its_files_relative_to_itself() {
    let html = r#"<link href="/style-1a.css"/><script src="/boot.js" data-js="/app-2b.js"></script><a href="/elsewhere">"#;
    let out = lms::relative_refs(
        html,
        ["style-1a.css", "boot.js", "app-2b.js", "pre/en/1.json"].into_iter(),
    );
    assert_eq!(
        out,
        r#"<link href="./style-1a.css"/><script src="./boot.js" data-js="./app-2b.js"></script><a href="/elsewhere">"#
    );
}

/// A built app in miniature: an index naming its files from the root, a file, a folder,
/// and a precompressed copy.
fn tiny_dist(dir: &Path) {
    std::fs::create_dir_all(dir.join("pre/en")).unwrap();
    std::fs::write(dir.join("index.html"), r#"<script src="/boot.js"></script>"#).unwrap();
    std::fs::write(dir.join("boot.js"), "// boot").unwrap();
    std::fs::write(dir.join("boot.js.br"), "brotli").unwrap();
    std::fs::write(dir.join("pre/en/1.json"), "{}").unwrap();
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lockstep-lms-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn unzip(path: &Path) -> Vec<(String, String)> {
    let mut zip = zip::ZipArchive::new(std::fs::File::open(path).unwrap()).unwrap();
    (0..zip.len())
        .map(|i| {
            let mut f = zip.by_index(i).unwrap();
            let mut text = String::new();
            f.read_to_string(&mut text).unwrap();
            (f.name().to_string(), text)
        })
        .collect()
}

#[test]
fn each_zip_holds_the_app_the_adapter_and_a_manifest_listing_every_file() {
    let dir = scratch("zips");
    tiny_dist(&dir.join("dist"));
    let plan = lms::plan(&req(|r| {
        r.pass_quiz = Some("75".into());
        r.pass_labs = Some("safe-release,redlock".into());
    }))
    .unwrap();
    let written = lms::write(&plan, &dir.join("dist"), &dir.join("out")).unwrap();
    assert_eq!(written.len(), 3);
    for (w, format) in written.iter().zip(Format::ALL) {
        assert_eq!(w.path, dir.join("out").join(format.zip_name()));
        let files = unzip(&w.path);
        let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(w.files, files.len());
        let manifest = if format == Format::Cmi5 {
            "cmi5.xml"
        } else {
            "imsmanifest.xml"
        };
        for want in [
            manifest,
            "lms.html",
            "lms.js",
            "index.html",
            "boot.js",
            "pre/en/1.json",
        ] {
            assert!(names.contains(&want), "{format:?}: {want} missing from {names:?}");
        }
        assert!(!names.iter().any(|n| n.ends_with(".br")), "{names:?}");
        let text = |name: &str| &files.iter().find(|(n, _)| n == name).unwrap().1;
        assert_eq!(text("index.html"), r#"<script src="./boot.js"></script>"#);
        assert!(text("lms.html").contains(&format!("\"format\":\"{}\"", format.name())));
        let xml = text(manifest);
        match format {
            Format::Cmi5 => {
                assert!(
                    xml.contains("moveOn=\"CompletedAndPassed\" masteryScore=\"0.75\""),
                    "{xml}"
                );
                assert!(
                    xml.contains(&format!("<au id=\"{}\"", plan.au)) && xml.contains("<url>lms.html</url>")
                );
            }
            _ => {
                for n in names.iter().filter(|n| **n != manifest) {
                    assert!(
                        xml.contains(&format!("<file href=\"{n}\"/>")),
                        "{format:?}: {n} not listed"
                    );
                }
                assert!(xml.contains("href=\"lms.html\""));
                let (scorm_type, version) = if format == Format::Scorm12 {
                    ("adlcp:scormtype=\"sco\"", "<schemaversion>1.2</schemaversion>")
                } else {
                    (
                        "adlcp:scormType=\"sco\"",
                        "<schemaversion>2004 4th Edition</schemaversion>",
                    )
                };
                assert!(xml.contains(scorm_type) && xml.contains(version), "{xml}");
                assert!(
                    !xml.contains("masteryscore"),
                    "the platform must not judge by the score alone"
                );
            }
        }
    }
    // One build packs to the same bytes.
    let first = std::fs::read(&written[0].path).unwrap();
    lms::write(&plan, &dir.join("dist"), &dir.join("out")).unwrap();
    assert_eq!(std::fs::read(&written[0].path).unwrap(), first);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_pack_travels_inside_its_package() {
    let dir = scratch("pack");
    tiny_dist(&dir.join("dist"));
    let plan = lms::plan(&req(|r| {
        r.format = "scorm2004".into();
        r.pack = Some("packs/example".into());
    }))
    .unwrap();
    assert_eq!(plan.pack.as_deref(), Some("pack/pack.toml"));
    assert_ne!(plan.lesson, "distributed-locks", "the pack's own lesson id");
    let written = lms::write(&plan, &dir.join("dist"), &dir.join("out")).unwrap();
    let files = unzip(&written[0].path);
    let pack_toml = std::fs::read_to_string("packs/example/pack.toml").unwrap();
    assert!(files
        .iter()
        .any(|(n, t)| n == "pack/pack.toml" && *t == pack_toml));
    let html = &files.iter().find(|(n, _)| n == "lms.html").unwrap().1;
    assert!(html.contains("\"pack\":\"pack/pack.toml\""));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn no_built_app_is_a_clear_error() {
    let dir = scratch("nodist");
    std::fs::create_dir_all(&dir).unwrap();
    let plan = lms::plan(&req(|_| {})).unwrap();
    let e = lms::write(&plan, &dir, &dir.join("out")).unwrap_err();
    assert!(
        e.ends_with("no built app here (no index.html); run `make build` first"),
        "{e}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
