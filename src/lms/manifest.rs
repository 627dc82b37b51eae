//! The manifests a platform reads to import a package: `imsmanifest.xml` for SCORM 1.2
//! and SCORM 2004 4th edition, `cmi5.xml` (the course structure) for cmi5. One
//! organization with one item (the whole lesson, launched at `lms.html`), every file
//! listed. No mastery score goes into a SCORM manifest: the platform would then judge
//! "passed" by the score alone, and the instructor's rule may also name labs; the package
//! reports success itself. cmi5's `masteryScore` is the quick check's share, which the
//! platform hands back at launch and the adapter uses.

use super::{Format, Plan};
use crate::xml::escape;

/// The manifest's file name and text for `format`, listing `files` (the package's paths).
pub fn manifest(plan: &Plan, format: Format, files: &[String]) -> (&'static str, String) {
    match format {
        Format::Scorm12 => ("imsmanifest.xml", scorm(plan, files, &SCORM12)),
        Format::Scorm2004 => ("imsmanifest.xml", scorm(plan, files, &SCORM2004)),
        Format::Cmi5 => ("cmi5.xml", cmi5(plan)),
    }
}

/// `identifier`s are XML names (xs:ID): the key is slugs, digits, `-` and `.`, so a
/// prefix makes one.
fn identifier(plan: &Plan) -> String {
    format!("lockstep-{}", plan.key)
}

/// What differs between the two SCORM manifests: the namespaces and schemas, the schema
/// version, and the spelling of the resource's SCORM type.
struct Scorm {
    version: &'static str,
    namespaces: &'static str,
    schemaversion: &'static str,
    scorm_type: &'static str,
    visible: &'static str,
}

const SCORM12: Scorm = Scorm {
    version: "1.0",
    namespaces: r#"xmlns="http://www.imsproject.org/xsd/imscp_rootv1p1p2"
    xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_rootv1p2"
    xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
    xsi:schemaLocation="http://www.imsproject.org/xsd/imscp_rootv1p1p2 imscp_rootv1p1p2.xsd http://www.imsglobal.org/xsd/imsmd_rootv1p2p1 imsmd_rootv1p2p1.xsd http://www.adlnet.org/xsd/adlcp_rootv1p2 adlcp_rootv1p2.xsd""#,
    schemaversion: "1.2",
    scorm_type: "adlcp:scormtype",
    visible: r#" isvisible="true""#,
};

const SCORM2004: Scorm = Scorm {
    version: "1",
    namespaces: r#"xmlns="http://www.imsglobal.org/xsd/imscp_v1p1"
    xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_v1p3"
    xmlns:adlseq="http://www.adlnet.org/xsd/adlseq_v1p3"
    xmlns:adlnav="http://www.adlnet.org/xsd/adlnav_v1p3"
    xmlns:imsss="http://www.imsglobal.org/xsd/imsss"
    xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
    xsi:schemaLocation="http://www.imsglobal.org/xsd/imscp_v1p1 imscp_v1p1.xsd http://www.adlnet.org/xsd/adlcp_v1p3 adlcp_v1p3.xsd http://www.adlnet.org/xsd/adlseq_v1p3 adlseq_v1p3.xsd http://www.adlnet.org/xsd/adlnav_v1p3 adlnav_v1p3.xsd http://www.imsglobal.org/xsd/imsss imsss_v1p0.xsd""#,
    schemaversion: "2004 4th Edition",
    scorm_type: "adlcp:scormType",
    visible: "",
};

fn scorm(plan: &Plan, files: &[String], s: &Scorm) -> String {
    let id = identifier(plan);
    let title = escape(&plan.title);
    let files: String = files
        .iter()
        .map(|f| format!("      <file href=\"{}\"/>\n", escape(f)))
        .collect();
    let Scorm {
        version,
        namespaces,
        schemaversion,
        scorm_type,
        visible,
    } = s;
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<manifest identifier="{id}" version="{version}"
    {namespaces}>
  <metadata>
    <schema>ADL SCORM</schema>
    <schemaversion>{schemaversion}</schemaversion>
  </metadata>
  <organizations default="{id}-org">
    <organization identifier="{id}-org">
      <title>{title}</title>
      <item identifier="{id}-item" identifierref="{id}-sco"{visible}>
        <title>{title}</title>
      </item>
    </organization>
  </organizations>
  <resources>
    <resource identifier="{id}-sco" type="webcontent" {scorm_type}="sco" href="lms.html">
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
