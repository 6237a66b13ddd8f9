import { describe, expect, it } from '@jest/globals';
import { decodeDataUri, parseHtmlTable } from '@readpack/mineru-client';

describe('parseHtmlTable', () => {
  it('reads MinerU\'s table_body into rows of cell text', () => {
    const html = '<html><body><table><tr><td>Site</td><td>10</td></tr><tr><td>Pine Ck</td><td>P,T</td></tr></table></body></html>';
    expect(parseHtmlTable(html)).toEqual([
      ['Site', '10'],
      ['Pine Ck', 'P,T'],
    ]);
  });

  it('puts a spanned cell\'s text in its first position and leaves the covered ones empty', () => {
    const html =
      '<table><tr><td rowspan="2">Site</td><td colspan="3">Percentile</td></tr>' +
      '<tr><td>10</td><td>20</td><td>30</td></tr>' +
      '<tr><td>Redhill</td><td colspan=2>P</td><td>T</td></tr></table>';
    expect(parseHtmlTable(html)).toEqual([
      ['Site', 'Percentile', '', ''],
      ['', '10', '20', '30'],
      ['Redhill', 'P', '', 'T'],
    ]);
  });

  it('tolerates unclosed cells and rows, th, nested markup and entities', () => {
    const html = '<table><tr><th>A &amp; B<td><b>x</b>&lt;1&nbsp;kg<br>net<tr><td>&#x4e2d;&#25991;<td>  spaced   out  </table>';
    expect(parseHtmlTable(html)).toEqual([
      ['A & B', 'x<1 kg net'],
      ['中文', 'spaced out'],
    ]);
  });

  it('pads short rows and ignores a row span that reaches past the table', () => {
    expect(parseHtmlTable('<table><tr><td rowspan="5">a</td><td>b</td></tr><tr><td>c</td></tr><tr><td>d</td><td>e</td></tr></table>')).toEqual([
      ['a', 'b', ''],
      ['', 'c', ''],
      ['', 'd', 'e'],
    ]);
    expect(parseHtmlTable('<p>no table here</p>')).toEqual([]);
  });
});

describe('decodeDataUri', () => {
  it('decodes base64 and percent-encoded data URIs', () => {
    expect(decodeDataUri('data:image/jpeg;base64,/9j/4A==')).toEqual({ mediaType: 'image/jpeg', data: new Uint8Array([0xff, 0xd8, 0xff, 0xe0]) });
    expect(decodeDataUri('data:,a%20b')).toEqual({ mediaType: 'text/plain', data: new TextEncoder().encode('a b') });
  });

  it('refuses what is not a data URI', () => {
    expect(decodeDataUri('images/abc.jpg')).toBeUndefined();
    expect(decodeDataUri('data:image/png;base64,not base64!')).toBeUndefined();
  });
});
