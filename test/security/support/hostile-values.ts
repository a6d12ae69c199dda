/**
 * The hostile inputs the fuzz suite draws from, as raw text (JSON fragments, URL
 * segments, header values) so that what JSON.stringify or the URL API would refuse to
 * write — lone surrogates, 1e400, `__proto__` keys — still reaches the server.
 */

const DEEP = 100_000;
const longText = (length: number): string => 'a'.repeat(length);

/** JSON values (as JSON text) put in place of a field. */
export const HOSTILE_JSON_VALUES: readonly string[] = [
  // Text the database cannot store, and look-alikes it can.
  '"a\\u0000b"',
  '"\\u0000"',
  `"${'\\u0000'.repeat(2_000)}"`,
  '"\\ud800"',
  '"tail \\udfff"',
  '"\\udc00\\ud800"',
  '"\\ud83d\\ude00 pair"',
  '"%00"',
  '"\\\\u0000"',
  '"\\u202e\\u202drtl \\u200f"',
  '"\\ufeffbom"',
  '"\\uffff\\ufffe"',
  '"\\u0001\\u001f\\u007f"',
  '"é漢字 👋"',
  // Sizes.
  `"${longText(300_000)}"`,
  `"${longText(5_000)}"`,
  '""',
  '" "',
  // Depth and breadth.
  '['.repeat(DEEP) + ']'.repeat(DEEP),
  `${'{"a":'.repeat(DEEP)}1${'}'.repeat(DEEP)}`,
  '['.repeat(129) + ']'.repeat(129),
  `${'['.repeat(100)}"x"${']'.repeat(100)}`,
  `[${'1,'.repeat(100_000)}1]`,
  `{${Array.from({ length: 30_000 }, (_, index) => `"k${index}":${index}`).join(',')}}`,
  `[${'{"role":"user","content":"x"},'.repeat(2_000)}{"role":"user","content":"x"}]`,
  // Numbers.
  '1e400',
  '-1e400',
  '1e-400',
  '123456789012345678901234567890',
  '-123456789012345678901234567890',
  '9007199254740993',
  '-1',
  '-0',
  '0',
  '1.5',
  '2147483648',
  '-2147483649',
  '4294967296',
  // Wrong types.
  'true',
  'false',
  'null',
  '[]',
  '{}',
  '[1,"a",null,{}]',
  '{"a":[{"b":null}]}',
  '"123"',
  // Prototype pollution.
  '{"__proto__":{"polluted":true,"admin":true}}',
  '{"constructor":{"prototype":{"polluted":true}}}',
  '"__proto__"',
  '"constructor"',
  '"toString"',
  // Injection shapes, dates and identifiers.
  `"'; DROP TABLE usage_log; --"`,
  '"../../../../etc/passwd"',
  '"file:///etc/passwd"',
  '"http://127.0.0.1:1/"',
  '"<script>alert(1)</script>"',
  '"${HOME}"',
  '"{{7*7}}"',
  '"2026-13-45T99:99:99Z"',
  '"99999-12-31T23:59:59Z"',
  '"0000-00-00"',
  '"-infinity"',
  '"NaN"',
  '"00000000-0000-0000-0000-000000000000"',
  '"resp_\\u0000"',
];

/** Object keys added beside the real ones. */
export const HOSTILE_KEYS: readonly string[] = ['__proto__', 'constructor', 'prototype', '', 'a\\u0000b', '\\ud800', '\\u202e', longText(10_000), '$where', 'hasOwnProperty', 'toJSON'];

/** Path segments, already percent-encoded as a client would put them on the wire. */
export const HOSTILE_PATH_SEGMENTS: readonly string[] = [
  '%00',
  'a%00b',
  '%00%00%00',
  '%ff%fe',
  '%ED%A0%80',
  '%C0%80',
  '%',
  '%zz',
  '..%2f..%2fetc%2fpasswd',
  '%2e%2e',
  longText(90),
  longText(5_000),
  '%E2%80%AE',
  '%EF%BB%BF',
  '%F0%9F%98%80',
  '-1',
  '0',
  '99999999999999999999999999',
  '1e400',
  'null',
  'undefined',
  '__proto__',
  'constructor',
  '%20',
  '%0d%0aset-cookie:%20x=1',
  "'%20OR%201=1--",
  'resp_%00',
  'NaN',
  '00000000-0000-0000-0000-000000000000',
];

/** Query values, percent-encoded. */
export const HOSTILE_QUERY_VALUES: readonly string[] = [...HOSTILE_PATH_SEGMENTS, '', '2026-13-45', '-5', '1.5', 'true', '%5B%5D', longText(20_000)];

/** Whole query strings whose shape itself is hostile. */
export const HOSTILE_QUERY_STRINGS: readonly string[] = [
  '__proto__[polluted]=1',
  'constructor[prototype][polluted]=1',
  'model[]=a&model[]=b',
  'limit=1&limit=2&limit=%00',
  '%00=1',
  '%ED%A0%80=1',
  '=&&&=',
  Array.from({ length: 2_000 }, (_, index) => `k${index}=${index}`).join('&'),
];

/** Names of query parameters routes read, tried with hostile values. */
export const QUERY_NAMES: readonly string[] = [
  'model',
  'limit',
  'after',
  'before',
  'order',
  'from',
  'to',
  'since',
  'until',
  'key_id',
  'agent',
  'agent_id',
  'q',
  'collection',
  'include',
  'cursor',
  'offset',
  'page',
  'status',
  'id',
  'days',
  'group_by',
  'alt',
  'key',
  'pageSize',
  'pageToken',
  'starting_after',
  'ending_before',
  'format',
  'token',
];

/** Header values; bytes above 0x7f arrive as a server reads them off the wire (latin1). */
export const HOSTILE_HEADER_VALUES: readonly string[] = [
  '',
  ' ',
  longText(60_000),
  Buffer.from('é漢字 👋 \u202e\ufeff', 'utf8').toString('latin1'),
  '\u00ff\u00fe',
  'null',
  '-1',
  '__proto__',
  '%00',
  'Bearer',
  'Bearer ',
  'Basic YWRtaW46YWRtaW4=',
  'Bearer sk-jn-',
  'Bearer pk-jn-xxxxxxxx',
  `Bearer sk-${longText(5_000)}`,
  'junction_session=; junction_session=x',
  `junction_session=${longText(5_000)}`,
];

export const HOSTILE_HEADER_NAMES: readonly string[] = [
  'authorization',
  'x-api-key',
  'x-goog-api-key',
  'cookie',
  'x-csrf-token',
  'origin',
  'host',
  'accept',
  'accept-encoding',
  'content-encoding',
  'idempotency-key',
  'x-title',
  'http-referer',
  'anthropic-version',
  'anthropic-beta',
  'openai-organization',
  'x-request-id',
  'x-forwarded-for',
  'x-forwarded-proto',
  'sec-fetch-site',
  'traceparent',
  'if-none-match',
  'range',
];

/** Content types sent with a body; JSON ones with a twist, and ones no route takes. */
export const HOSTILE_CONTENT_TYPES: readonly string[] = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  'multipart/form-data; boundary=fuzz',
  'application/octet-stream',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'application/jsonx',
  'application/x-ndjson',
  'text/event-stream',
  'application/xml',
  '*/*',
  'application/json, text/plain',
];

/** Whole raw bodies, sent as JSON or under another content type. */
export const HOSTILE_RAW_BODIES: readonly (string | Buffer)[] = [
  '',
  ' ',
  'null',
  '[]',
  '"text"',
  '123',
  'true',
  '{',
  '{"a":}',
  '{"a":1,}',
  'NaN',
  '{"a":1}{"b":2}',
  '\ufeff{}',
  '\u0000',
  '{"model":"\u0000"}',
  'a=1&__proto__[polluted]=1',
  '--fuzz\r\nContent-Disposition: form-data; name="file"; filename="x\u0000.txt"\r\n\r\nhello\r\n--fuzz--\r\n',
  '--fuzz\r\nContent-Disposition: form-data; name="__proto__"\r\n\r\nx\r\n--fuzz',
  Buffer.from([0xff, 0xfe, 0x00, 0x7b, 0x00, 0x7d]),
  Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0xed, 0xa0, 0x80, 0xf8, 0x88, 0x80, 0x80, 0x80, 0x22, 0x7d]),
  Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x00]),
  Buffer.alloc(1_100_000, 0x20),
];
