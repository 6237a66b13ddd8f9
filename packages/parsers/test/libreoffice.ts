import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, extname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** One LibreOffice profile for the test process (its own, so it never meets a consumer's). */
const PROFILE = join(tmpdir(), `readpack-test-lo-${process.pid}`);

/**
 * Converts a source the test wrote (`name` with its extension: .html, .fodt, .fodp…) to `format`
 * (doc, odt, rtf, ppt, odp, pdf) with LibreOffice, as real files are made.
 */
export async function sofficeConvert(name: string, source: string | Uint8Array, format: string, filter?: string): Promise<Uint8Array> {
  const dir = await mkdtemp(join(tmpdir(), 'readpack-test-src-'));
  try {
    const input = join(dir, name);
    await writeFile(input, source);
    await run('soffice', [`-env:UserInstallation=${pathToFileURL(PROFILE).href}`, '--headless', '--norestore', '--convert-to', filter ? `${format}:${filter}` : format, '--outdir', dir, input], { timeout: 120_000 });
    return new Uint8Array(await readFile(join(dir, `${basename(name, extname(name))}.${format}`)));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export async function removeTestProfile(): Promise<void> {
  await rm(PROFILE, { recursive: true, force: true });
}

const NS = [
  'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"',
  'xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0"',
  'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"',
  'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0"',
  'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0"',
  'xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0"',
  'xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0"',
  'xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0"',
].join(' ');

/**
 * A flat ODT (one XML file LibreOffice opens as a text document): a Heading 1, a paragraph with a
 * footnote, a Heading 2, a 2×3 table, a paragraph anchoring a text box, a running header and footer.
 */
export function flatOdt(): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<office:document ${NS} office:version="1.2" office:mimetype="application/vnd.oasis.opendocument.text">
 <office:master-styles><style:master-page style:name="Standard" style:page-layout-name="pm1">
  <style:header><text:p>Running header text</text:p></style:header>
  <style:footer><text:p>Running footer text</text:p></style:footer>
 </style:master-page></office:master-styles>
 <office:automatic-styles><style:page-layout style:name="pm1"><style:page-layout-properties fo:page-width="21cm" fo:page-height="29.7cm"/><style:header-style/><style:footer-style/></style:page-layout></office:automatic-styles>
 <office:body><office:text>
  <text:h text:style-name="Heading_20_1" text:outline-level="1">Annual report</text:h>
  <text:p>The first paragraph of the annual report.<text:note text:id="n1" text:note-class="footnote"><text:note-citation>1</text:note-citation><text:note-body><text:p>A footnote about the figures.</text:p></text:note-body></text:note></text:p>
  <text:h text:style-name="Heading_20_2" text:outline-level="2">Results by region</text:h>
  <table:table table:name="Results"><table:table-column table:number-columns-repeated="2"/>
   <table:table-row><table:table-cell><text:p>Region</text:p></table:table-cell><table:table-cell><text:p>Revenue</text:p></table:table-cell></table:table-row>
   <table:table-row><table:table-cell><text:p>North</text:p></table:table-cell><table:table-cell><text:p>1200</text:p></table:table-cell></table:table-row>
   <table:table-row><table:table-cell><text:p>South</text:p></table:table-cell><table:table-cell><text:p>800</text:p></table:table-cell></table:table-row>
  </table:table>
  <text:p>Closing words of the report.<draw:frame text:anchor-type="paragraph" svg:width="6cm" svg:height="2cm"><draw:text-box><text:p>Text in a text box</text:p></draw:text-box></draw:frame></text:p>
 </office:text></office:body>
</office:document>`;
}

/** A flat ODP with two slides of text. */
export function flatOdp(): string {
  const frame = (y: number, text: string) =>
    `<draw:frame svg:x="2cm" svg:y="${y}cm" svg:width="22cm" svg:height="3cm"><draw:text-box><text:p>${text}</text:p></draw:text-box></draw:frame>`;
  return `<?xml version="1.0" encoding="UTF-8"?>
<office:document ${NS} office:version="1.2" office:mimetype="application/vnd.oasis.opendocument.presentation">
 <office:body><office:presentation>
  <draw:page draw:name="One">${frame(2, 'Quarterly review slide')}${frame(6, 'Revenue grew in every region')}</draw:page>
  <draw:page draw:name="Two">${frame(2, 'Second slide about next steps')}</draw:page>
 </office:presentation></office:body>
</office:document>`;
}
