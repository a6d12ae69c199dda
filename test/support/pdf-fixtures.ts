import { deflateSync } from 'node:zlib';

/** A PDF built by hand from its objects' bodies, with a correct xref table; the last object may be its /Info. */
function assemblePdf(objects: Buffer[], info?: number): Buffer {
  const parts: Buffer[] = [Buffer.from('%PDF-1.4\n')];
  let length = parts[0]?.length ?? 0;
  const offsets: number[] = [];
  objects.forEach((object, index) => {
    offsets.push(length);
    const piece = Buffer.concat([Buffer.from(`${index + 1} 0 obj\n`), object, Buffer.from('\nendobj\n')]);
    parts.push(piece);
    length += piece.length;
  });
  const table = offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`).join('');
  const trailer = `<< /Size ${objects.length + 1} /Root 1 0 R${info ? ` /Info ${info} 0 R` : ''} >>`;
  parts.push(Buffer.from(`xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${table}trailer\n${trailer}\nstartxref\n${length}\n%%EOF\n`));
  return Buffer.concat(parts);
}

const pageObjects = (contents: Buffer) => [
  Buffer.from('<< /Type /Catalog /Pages 2 0 R >>'),
  Buffer.from('<< /Type /Pages /Kids [3 0 R] /Count 1 >>'),
  Buffer.from('<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>'),
  contents,
  Buffer.from('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>'),
];

/** A one-page PDF with one line of Helvetica text and a title. */
export function minimalPdf(text: string, title: string): Buffer {
  const stream = `BT /F1 12 Tf 72 720 Td (${text}) Tj ET`;
  return assemblePdf([...pageObjects(Buffer.from(`<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`)), Buffer.from(`<< /Title (${title}) >>`)], 6);
}

/**
 * A small valid PDF whose one content stream is Flate-compressed text drawing
 * operators that inflate to `inflatedBytes` (about 1000:1, so 200 MB fits in a few
 * hundred kB): a decompression bomb.
 */
export function inflateBombPdf(inflatedBytes: number): Buffer {
  const line = Buffer.from('BT /F1 12 Tf 72 720 Td (All work and no play makes Jack a dull boy) Tj ET\n');
  const raw = Buffer.alloc(inflatedBytes);
  for (let at = 0; at < inflatedBytes; at += line.length) line.copy(raw, at);
  const compressed = deflateSync(raw, { level: 9 });
  return assemblePdf(pageObjects(Buffer.concat([Buffer.from(`<< /Length ${compressed.length} /Filter /FlateDecode >>\nstream\n`), compressed, Buffer.from('\nendstream')])));
}
