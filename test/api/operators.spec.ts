/**
 * Operators, roles and personal tokens on the admin API (docs/admin-api.md#operators): every admin
 * route × every role (allowed, or 403), an operator limited to some applications, and the tokens'
 * lifecycle (shown once, stored hashed, revocable, last used). Real HTTP on the in-process API.
 */
import { expect } from 'chai';
import type { Router } from 'express';
import { adminRouter } from '../../api/admin/admin.router.js';
import { tokenDigest } from '../../shared/domain/passwords.js';
import { ADMIN_HEADERS } from '../support/admin.js';
import { assertMatchesSpec } from '../support/openapi.js';
import { call, useTestApi } from '../support/context.js';

type Method = 'get' | 'post' | 'patch' | 'delete';
interface Route {
  method: Method;
  path: string;
}

/** Every route of the admin router, read from the router itself: a route added later is in the table. */
function adminRoutes(router: Router): Route[] {
  const routes: Route[] = [];
  for (const layer of router.stack as unknown as { route?: { path: string; methods: Record<string, boolean> } }[]) {
    if (!layer.route) continue;
    for (const [method, on] of Object.entries(layer.route.methods))
      if (on && method !== '_all') routes.push({ method: method as Method, path: layer.route.path });
  }
  return routes;
}

const OTHER_ID = '0123456789abcdef01234567'; // an id of nothing: a 404 if the role lets the request through

describe('admin API: operators, roles and personal tokens', function () {
  this.timeout(120_000);
  const api = useTestApi();
  const admin = (method: string, path: string, body?: unknown) =>
    call(api().url, method, `/admin${path}`, { headers: ADMIN_HEADERS, body });
  const as = (token: string) => (method: string, path: string, body?: unknown) =>
    call(api().url, method, `/admin${path}`, { headers: { authorization: `Bearer ${token}` }, body });
  const seq = `${process.pid}-${Date.now()}`;

  async function newApp(name: string): Promise<string> {
    const res = await admin('POST', '/applications', { name });
    expect(res.status).to.equal(201);
    return res.body.id as string;
  }
  async function newOperator(role: string, applications: string[] | null = null) {
    const res = await admin('POST', '/operators', {
      email: `${role}-${seq}-${Math.random().toString(36).slice(2, 8)}@shop.example`,
      name: role,
      role,
      applications,
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    const token = await admin('POST', `/operators/${res.body.id}/tokens`, { name: 'tests' });
    expect(token.status).to.equal(201);
    return { id: res.body.id as string, token: token.body.token as string };
  }

  it('when every admin route is called by each role, then viewers only read, editors do not manage operators, owners do everything', async () => {
    const routes = adminRoutes(adminRouter(api().services));
    expect(routes.length, 'admin routes found').to.be.above(30);
    const owner = await newOperator('owner');
    const editor = await newOperator('editor');
    const viewer = await newOperator('viewer');
    const target = await newOperator('viewer'); // the operator the operator routes name: not the caller

    /** What each role may do on a route: allowed, or refused with 403. */
    const expected = (role: 'owner' | 'editor' | 'viewer', { method, path }: Route): 'allowed' | 403 => {
      // Who am I, signing in and out: anyone's.
      if (path === '/operators/me' || path.startsWith('/sessions') || role === 'owner') return 'allowed';
      if (path.startsWith('/operators')) return 403; // managing operators, or another operator's tokens
      // "Try a cart", the campaign preview and a backtest: POSTs that change nothing live.
      if (path.endsWith('/explain') || path.endsWith('/campaign-preview') || path.endsWith('/backtests')) return 'allowed';
      if (role === 'viewer' && method !== 'get') return 403;
      return 'allowed';
    };
    const table: string[] = [];
    const wrong: string[] = [];
    for (const route of routes) {
      const cells: string[] = [];
      for (const [role, who] of [
        ['owner', owner],
        ['editor', editor],
        ['viewer', viewer],
      ] as const) {
        // A fresh application per request that may change it (a delete, an archive, a rotation).
        const app = await newApp(`roles ${role} ${route.method} ${route.path}`);
        const path = route.path
          .replace(':app', app)
          .replace(':operator', target.id)
          .replace(/:(campaign|customer|wallet|webhook|token|session)\b/g, OTHER_ID);
        const res = await as(who.token)(
          route.method.toUpperCase(),
          path,
          route.method === 'get' || route.method === 'delete' ? undefined : {},
        );
        const got = res.status === 403 ? 403 : 'allowed';
        expect(res.status, `${role} ${route.method} ${route.path}`).to.not.be.oneOf([401, 500]);
        if (got === 403) expect(res.body, `${role} ${route.method} ${route.path}`).to.deep.include({ code: 403, message: 'Forbidden' });
        if (got !== expected(role, route))
          wrong.push(`${role} ${route.method.toUpperCase()} ${route.path}: ${res.status} ${JSON.stringify(res.body)}`);
        cells.push(got === 403 ? '403' : `ok (${res.status})`);
      }
      table.push(`| ${route.method.toUpperCase()} ${route.path} | ${cells.join(' | ')} |`);
    }
    console.log(['      | route | owner | editor | viewer |', '      |---|---|---|---|', ...table.map((l) => `      ${l}`)].join('\n'));
    expect(wrong).to.deep.equal([]);
  });

  it('when an operator is limited to one application, then it reaches only that one: others are 403, listings hold only it, and it cannot create one', async () => {
    const mine = await newApp('limited: mine');
    const other = await newApp('limited: other');
    const limited = await newOperator('editor', [mine]);
    const op = as(limited.token);
    expect((await op('GET', `/applications/${mine}/campaigns`)).status).to.equal(200);
    const refused = await op('GET', `/applications/${other}/campaigns`);
    expect(refused.status).to.equal(403);
    expect(refused.body.details).to.equal('this operator is not given this application');
    expect((await op('PATCH', `/applications/${other}`, { name: 'taken over' })).status).to.equal(403);
    expect(
      (await admin('GET', '/applications?limit=1000&include_archived=true')).body.applications.find((a: { id: string }) => a.id === other)
        .name,
    ).to.equal('limited: other');
    const listed = await op('GET', '/applications?limit=1000');
    expect(listed.body.applications.map((a: { id: string }) => a.id)).to.deep.equal([mine]);
    expect((await op('POST', '/applications', { name: 'new' })).status).to.equal(403);
  });

  it('when a token is created, then it is shown once, stored only as its digest, records its last use, and stops working once revoked or its operator is disabled', async () => {
    const created = await admin('POST', '/operators', {
      email: `tokens-${seq}@shop.example`,
      role: 'viewer',
      password: 'correct horse battery staple',
    });
    expect(created.status).to.equal(201);
    expect(created.body).to.not.have.any.keys('password', 'password_hash', 'passwordHash');
    expect(created.body.has_password).to.equal(true);
    assertMatchesSpec('POST', '/admin/operators', 201, created.body);
    const id = created.body.id as string;
    const made = await admin('POST', `/operators/${id}/tokens`, { name: 'reporting script' });
    assertMatchesSpec('POST', '/admin/operators/{operator}/tokens', 201, made.body);
    expect(made.body.token).to.match(/^cop_[A-Za-z0-9_-]{43}$/);
    const { token } = made.body as { token: string };
    // The database holds the digest, never the token.
    const stored = await api().services.db.models.OperatorToken.findById(made.body.id).lean();
    expect(stored!.digest).to.equal(tokenDigest(token));
    expect(JSON.stringify(stored)).to.not.include(token);
    const listed = await admin('GET', `/operators/${id}/tokens`);
    expect(listed.body.tokens).to.have.length(1);
    expect(listed.body.tokens[0]).to.not.have.property('token');
    expect(listed.body.tokens[0].last_used_at).to.equal(null);
    assertMatchesSpec('GET', '/admin/operators/{operator}/tokens', 200, listed.body);

    const me = await as(token)('GET', '/operators/me');
    expect(me.status).to.equal(200);
    expect(me.body).to.include({ kind: 'operator', id, role: 'viewer' });
    assertMatchesSpec('GET', '/admin/operators/me', 200, me.body);
    const forbiddenAnswer = await as(token)('POST', '/applications', { name: 'no' });
    assertMatchesSpec('POST', '/admin/applications', 403, forbiddenAnswer.body);
    expect((await admin('GET', `/operators/${id}/tokens`)).body.tokens[0].last_used_at).to.be.a('string');

    // Its own tokens: a viewer makes and revokes them; another operator's: 403.
    const second = await as(token)('POST', `/operators/${id}/tokens`, { name: 'second' });
    expect(second.status).to.equal(201);
    expect((await as(second.body.token)('DELETE', `/operators/${id}/tokens/${second.body.id}`)).status).to.equal(200);
    expect((await as(second.body.token)('GET', '/operators/me')).status).to.equal(401);

    expect((await admin('DELETE', `/operators/${id}/tokens/${made.body.id}`)).body.revoked_at).to.be.a('string');
    expect((await as(token)('GET', '/operators/me')).status).to.equal(401);

    const third = await admin('POST', `/operators/${id}/tokens`, {});
    expect((await as(third.body.token)('GET', '/operators/me')).status).to.equal(200);
    expect((await admin('PATCH', `/operators/${id}`, { disabled: true })).status).to.equal(200);
    expect((await as(third.body.token)('GET', '/operators/me')).status).to.equal(401);
  });

  it('when the last enabled owner would be demoted or disabled, then 409 and it stays an owner', async () => {
    const owners = (await admin('GET', '/operators?limit=1000')).body.operators.filter(
      (o: { role: string; disabled: boolean }) => o.role === 'owner' && !o.disabled,
    );
    // Leave exactly one enabled owner (other files of this lane may have made some).
    const last = owners.length
      ? owners[0]
      : (await admin('POST', '/operators', { email: `owner-${seq}@shop.example`, role: 'owner' })).body;
    for (const o of owners.slice(1)) expect((await admin('PATCH', `/operators/${o.id}`, { disabled: true })).status).to.equal(200);
    const demoted = await admin('PATCH', `/operators/${last.id}`, { role: 'editor' });
    expect(demoted.status).to.equal(409);
    expect(demoted.body.details).to.equal('the last enabled owner cannot be demoted or disabled');
    expect((await admin('PATCH', `/operators/${last.id}`, { disabled: true })).status).to.equal(409);
    expect((await admin('GET', `/operators/${last.id}`)).body).to.include({ role: 'owner', disabled: false });
  });

  it('when an operator is created twice with one e-mail (any case), or with a short password or an unknown role, then 409 or 400 naming the field', async () => {
    const email = `Twice-${seq}@Shop.example`;
    expect((await admin('POST', '/operators', { email, role: 'viewer' })).status).to.equal(201);
    const again = await admin('POST', '/operators', { email: email.toLowerCase(), role: 'editor' });
    expect(again.status).to.equal(409);
    const short = await admin('POST', '/operators', { email: `short-${seq}@shop.example`, role: 'viewer', password: 'short' });
    expect(short.status).to.equal(400);
    expect(short.body.details).to.match(/"password" length must be at least 12/);
    const role = await admin('POST', '/operators', { email: `role-${seq}@shop.example`, role: 'admin' });
    expect(role.status).to.equal(400);
    expect(role.body.details).to.match(/"role" must be one of \[owner, editor, viewer\]/);
  });
});
