import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type ClaimRules, checkClaims, scopesOf } from '../../../src/auth/oauth/claims.js';

const NOW = 1_700_000_000_000;
const rules: ClaimRules = {
  issuer: 'https://as.example.com',
  resource: 'https://data.example.com/mcp/streamable',
  scope: 'mcp:tools',
  nowMs: NOW,
  selfContained: true,
};
const good = {
  iss: 'https://as.example.com',
  aud: 'https://data.example.com/mcp/streamable',
  exp: NOW / 1000 + 300,
  scope: 'openid mcp:tools',
  sub: 'alice',
};

describe('checkClaims', () => {
  test('a token naming this resource, unexpired, with the scope is accepted', () => {
    const r = checkClaims(good, rules);
    assert.equal(r.result, 'ok');
    assert.ok(r.result === 'ok');
    assert.equal(r.principal.kind, 'oauth');
    assert.equal(r.principal.id, 'alice');
    assert.deepEqual(r.principal.scopes, ['openid', 'mcp:tools']);
    assert.equal(r.principal.expiresAt, good.exp * 1000);
  });

  test('aud as an array must contain the resource', () => {
    assert.equal(checkClaims({ ...good, aud: ['x', rules.resource] }, rules).result, 'ok');
    assert.equal(checkClaims({ ...good, aud: ['https://data.example.com'] }, rules).result, 'invalid');
    assert.equal(checkClaims({ ...good, aud: undefined }, rules).result, 'invalid');
  });

  test('another issuer is refused; a trailing slash is not a different issuer', () => {
    assert.equal(checkClaims({ ...good, iss: 'https://evil.example.com' }, rules).result, 'invalid');
    assert.equal(checkClaims({ ...good, iss: 'https://as.example.com/' }, rules).result, 'ok');
  });

  test('expiry tolerates 60 s of clock skew and no more', () => {
    assert.equal(checkClaims({ ...good, exp: NOW / 1000 - 59 }, rules).result, 'ok');
    assert.equal(checkClaims({ ...good, exp: NOW / 1000 - 61 }, rules).result, 'invalid');
    assert.equal(checkClaims({ ...good, exp: 'soon' }, rules).result, 'invalid');
  });

  test('exp may be missing only when not required (introspection)', () => {
    const { exp: _exp, ...noExp } = good;
    assert.equal(checkClaims(noExp, rules).result, 'invalid');
    assert.equal(checkClaims(noExp, { ...rules, selfContained: false }).result, 'ok');
  });

  test('iss may be missing only when not required (introspection)', () => {
    const { iss: _iss, ...noIss } = good;
    assert.equal(checkClaims(noIss, rules).result, 'invalid');
    assert.equal(checkClaims(noIss, { ...rules, selfContained: false }).result, 'ok');
  });

  test('a token not yet valid beyond the skew is refused', () => {
    assert.equal(checkClaims({ ...good, nbf: NOW / 1000 + 120 }, rules).result, 'invalid');
    assert.equal(checkClaims({ ...good, nbf: NOW / 1000 + 30 }, rules).result, 'ok');
  });

  test('a missing scope is insufficient_scope, naming the scope', () => {
    const r = checkClaims({ ...good, scope: 'openid mcp:toolsX' }, rules);
    assert.equal(r.result, 'insufficient_scope');
    assert.ok(r.result === 'insufficient_scope');
    assert.equal(r.scope, 'mcp:tools');
  });

  test('principal falls back to client_id without sub', () => {
    const r = checkClaims({ ...good, sub: undefined, client_id: 'svc' }, rules);
    assert.ok(r.result === 'ok');
    assert.equal(r.principal.id, 'svc');
  });
});

describe('scopesOf', () => {
  test('reads scope strings and scp arrays, without duplicates', () => {
    assert.deepEqual(scopesOf({ scope: 'a  b', scp: ['b', 'c', 3] }), ['a', 'b', 'c']);
    assert.deepEqual(scopesOf({ scp: 'x y' }), ['x', 'y']);
    assert.deepEqual(scopesOf({}), []);
  });
});
