//! The manifests a platform reads to import a package: `imsmanifest.xml` for SCORM 1.2
//! and SCORM 2004 4th edition, `cmi5.xml` (the course structure) for cmi5. One
//! organization with one item (the whole lesson, launched at `lms.html`), every file
//! listed. No mastery score goes into a SCORM manifest: the platform would then judge
//! "passed" by the score alone, and the instructor's rule may also name labs; the package
//! reports success itself. cmi5's `masteryScore` is the quick check's share, which the
//! platform hands back at launch and the adapter uses.

use super::{Format, Plan};

/// Text for XML content and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

/// The manifest's file name and text for `format`, listing `files` (the package's paths).
pub fn manifest(plan: &Plan, format: Format, files: &[String]) -> (&'static str, String) {
    match format {
        Format::Scorm12 => ("imsmanifest.xml", scorm12(plan, files)),
        Format::Scorm2004 => ("imsmanifest.xml", scorm2004(plan, files)),
        Format::Cmi5 => ("cmi5.xml", cmi5(plan)),
    }
}

/// `identifier`s are XML names (xs:ID): the lesson id is a slug, so a prefix makes one.
fn identifier(plan: &Plan) -> String {
    format!("lockstep-{}-{}", plan.lesson, plan.lang)
}

fn file_list(files: &[String]) -> String {
    files
        .iter()
        .map(|f| format!("      <file href=\"{}\"/>\n", escape(f)))
        .collect()
}

fn scorm12(plan: &Plan, files: &[String]) -> String {
    let id = identifier(plan);
    let title = escape(&plan.title);
    let files = file_list(files);
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<manifest identifier="{id}" version="1.0"
    xmlns="http://www.imsproject.org/xsd/imscp_rootv1p1p2"
    xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_rootv1p2"
    xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
    xsi:schemaLocation="http://www.imsproject.org/xsd/imscp_rootv1p1p2 imscp_rootv1p1p2.xsd http://www.imsglobal.org/xsd/imsmd_rootv1p2p1 imsmd_rootv1p2p1.xsd http://www.adlnet.org/xsd/adlcp_rootv1p2 adlcp_rootv1p2.xsd">
  <metadata>
    <schema>ADL SCORM</schema>
    <schemaversion>1.2</schemaversion>
  </metadata>
  <organizations default="{id}-org">
    <organization identifier="{id}-org">
      <title>{title}</title>
      <item identifier="{id}-item" identifierref="{id}-sco" isvisible="true">
        <title>{title}</title>
      </item>
    </organization>
  </organizations>
  <resources>
    <resource identifier="{id}-sco" type="webcontent" adlcp:scormtype="sco" href="lms.html">
{files}    </resource>
  </resources>
</manifest>
"#
    )
}

fn scorm2004(plan: &Plan, files: &[String]) -> String {
    let id = identifier(plan);
    let title = escape(&plan.title);
    let files = file_list(files);
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<manifest identifier="{id}" version="1"
    xmlns="http://www.imsglobal.org/xsd/imscp_v1p1"
    xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_v1p3"
    xmlns:adlseq="http://www.adlnet.org/xsd/adlseq_v1p3"
    xmlns:adlnav="http://www.adlnet.org/xsd/adlnav_v1p3"
    xmlns:imsss="http://www.imsglobal.org/xsd/imsss"
    xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
    xsi:schemaLocation="http://www.imsglobal.org/xsd/imscp_v1p1 imscp_v1p1.xsd http://www.adlnet.org/xsd/adlcp_v1p3 adlcp_v1p3.xsd http://www.adlnet.org/xsd/adlseq_v1p3 adlseq_v1p3.xsd http://www.adlnet.org/xsd/adlnav_v1p3 adlnav_v1p3.xsd http://www.imsglobal.org/xsd/imsss imsss_v1p0.xsd">
  <metadata>
    <schema>ADL SCORM</schema>
    <schemaversion>2004 4th Edition</schemaversion>
  </metadata>
  <organizations default="{id}-org">
    <organization identifier="{id}-org">
      <title>{title}</title>
      <item identifier="{id}-item" identifierref="{id}-sco">
        <title>{title}</title>
      </item>
    </organization>
  </organizations>
  <resources>
    <resource identifier="{id}-sco" type="webcontent" adlcp:scormType="sco" href="lms.html">
{files}    </resource>
  </resources>
</manifest>
"#
    )
}

fn cmi5(plan: &Plan) -> String {
    let lang = plan.lang;
    let title = escape(&plan.title);
    let sections = plan
        .sections
        .iter()
        .map(|s| format!("§{} {}", s.order, s.title))
        .collect::<Vec<_>>()
        .join("; ");
    let description = escape(&sections);
    let move_on = if plan.has_rule() {
        "CompletedAndPassed"
    } else {
        "Completed"
    };
    let mastery = plan
        .pass_quiz
        .map(|m| format!(" masteryScore=\"{m}\""))
        .unwrap_or_default();
    let (course, au) = (escape(&plan.course), escape(&plan.au));
    format!(
        r#"<?xml version="1.0" encoding="utf-8"?>
<courseStructure xmlns="https://w3id.org/xapi/profiles/cmi5/v1/CourseStructure.xsd">
  <course id="{course}">
    <title><langstring lang="{lang}">{title}</langstring></title>
    <description><langstring lang="{lang}">{description}</langstring></description>
  </course>
  <au id="{au}" moveOn="{move_on}"{mastery} launchMethod="AnyWindow">
    <title><langstring lang="{lang}">{title}</langstring></title>
    <description><langstring lang="{lang}">{description}</langstring></description>
    <url>lms.html</url>
  </au>
</courseStructure>
"#
    )
}
