import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { REDACTED, Redactor, secretForms } from '../../../src/egress/redact.js';

const TOKEN = 'sk_live_AbC+/=1234567890xyz"\\é';

function noTrace(s: string, secret: string) {
  for (const f of secretForms(secret))
    assert.ok(!s.includes(f), `form ${JSON.stringify(f)} survived in ${s}`);
}

describe('redaction', () => {
  const r = new Redactor([TOKEN]);

  test('raw, and only the secret is replaced', () => {
    assert.equal(r.redactString(`Bearer ${TOKEN}`), `Bearer ${REDACTED}`);
    assert.equal(r.redactString(`a${TOKEN}b${TOKEN}c`), `a${REDACTED}b${REDACTED}c`);
    assert.equal(r.redactString('nothing here'), 'nothing here');
  });
  test('JSON-escaped, including \\u and \\/ spellings', () => {
    const json = JSON.stringify({ auth: `Bearer ${TOKEN}` });
    const out = r.redactString(json);
    assert.equal(JSON.parse(out).auth, `Bearer ${REDACTED}`);
    const asciiJson = JSON.stringify({ t: TOKEN }).replace(/é/g, '\\u00e9').replace(/\//g, '\\/');
    assert.equal(JSON.parse(r.redactString(asciiJson)).t, REDACTED);
  });
  test('URL-encoded in either hex case, and form-encoded', () => {
    const upper = encodeURIComponent(TOKEN);
    const lower = upper.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase());
    assert.equal(r.redactString(`https://x/cb?token=${upper}&a=1`), `https://x/cb?token=${REDACTED}&a=1`);
    assert.equal(r.redactString(`token=${lower}`), `token=${REDACTED}`);
    const spaced = new Redactor(['secret with spaces 123']);
    assert.equal(
      spaced.redactString(new URLSearchParams({ k: 'secret with spaces 123' }).toString()),
      `k=${REDACTED}`,
    );
  });
  test('base64, standard and URL-safe, at every alignment inside a longer blob', () => {
    for (const prefix of ['', 'u:', 'ab:', 'Bearer ']) {
      const std = Buffer.from(`${prefix}${TOKEN}`).toString('base64');
      const url = Buffer.from(`${prefix}${TOKEN}`).toString('base64url');
      noTrace(r.redactString(std), TOKEN);
      assert.ok(r.redactString(std).includes(REDACTED), `standard base64 with prefix '${prefix}'`);
      assert.ok(r.redactString(url).includes(REDACTED), `url-safe base64 with prefix '${prefix}'`);
    }
    const plain = new Redactor(['abcdefghijklmnopqrstuvwxyz012345']);
    const b64 = Buffer.from('abcdefghijklmnopqrstuvwxyz012345').toString('base64');
    assert.equal(plain.redactString(b64), REDACTED);
  });
  test('binary bodies are redacted on raw bytes', () => {
    const bin = Buffer.concat([Buffer.from([0, 255, 1, 2]), Buffer.from(TOKEN), Buffer.from([0xfe, 0xff])]);
    const out = r.redactBuffer(bin);
    assert.equal(out.indexOf(Buffer.from(TOKEN)), -1);
    assert.ok(out.includes(Buffer.from(REDACTED)));
    assert.deepEqual([...out.subarray(0, 4)], [0, 255, 1, 2]);
    assert.deepEqual([...out.subarray(out.length - 2)], [0xfe, 0xff]);
    const untouched = Buffer.from([1, 2, 3]);
    assert.equal(r.redactBuffer(untouched), untouched);
  });
  test('several secrets; headers and set-cookie arrays', () => {
    const two = new Redactor(['first-secret-value-1234', 'second-secret-value-5678']);
    const h = two.redactHeaders({
      location: 'https://x/?a=first-secret-value-1234',
      'set-cookie': ['s=second-secret-value-5678; Path=/', 'plain=1'],
    });
    assert.equal(h.location, `https://x/?a=${REDACTED}`);
    assert.deepEqual(h['set-cookie'], [`s=${REDACTED}; Path=/`, 'plain=1']);
  });
  test('overlapping forms merge into one replacement', () => {
    const s = new Redactor(['aaaa-bbbb-cccc-dddd']);
    assert.equal(s.redactString('xaaaa-bbbb-cccc-ddddaaaa-bbbb-cccc-ddddy'), `x${REDACTED}${REDACTED}y`);
  });
  test('no secrets: identity', () => {
    const none = new Redactor(['']);
    assert.equal(none.redactString('abc'), 'abc');
    assert.equal(none.empty, true);
  });
});
