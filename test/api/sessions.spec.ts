/**
 * Operators' browser sessions (docs/admin-api.md#sessions): sign-in sets an httpOnly, SameSite
 * cookie; changes made with it need its CSRF token; sessions are listed, revoked, signed out and
 * expire; failed sign-ins are throttled per e-mail and per address across two API replicas; and an
 * unknown e-mail and a wrong password cannot be told apart — status, body, or time over 1,000
 * tries each.
 */
import { expect } from 'chai';
import { ADMIN_HEADERS } from '../support/admin.js';
import { call, startTestApi, useTestApi, type TestApi } from '../support/context.js';

const PASSWORD = 'correct horse battery staple';

describe('admin API: browser sessions', function () {
  this.timeout(120_000);
  const api = useTestApi();
  const seq = `${process.pid}-${Date.now()}`;
  let n = 0;
  async function newOperator(url = api().url, role = 'editor') {
    const email = `s${n++}-${seq}@shop.example`;
    const res = await call(url, 'POST', '/admin/operators', {
      headers: ADMIN_HEADERS,
      body: { email, name: 'S', role, password: PASSWORD },
    });
    expect(res.status, res.text).to.equal(201);
    return { id: res.body.id as string, email };
  }
  const signIn = (email: string, password: string, url = api().url) => call(url, 'POST', '/admin/sessions', { body: { email, password } });
  /** The cookie pair (`name=value`) a sign-in answer set. */
  const cookieOf = (res: { headers: Headers }) => res.headers.get('set-cookie')!.split(';')[0]!;
  const withCookie = (cookie: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    call(api().url, method, `/admin${path}`, { headers: { cookie, ...headers }, ...(body === undefined ? {} : { body }) });

  it('when an operator signs in, then the cookie is httpOnly, SameSite=Strict, scoped to /admin, and a change with it needs the CSRF token', async () => {
    const op = await newOperator();
    const res = await signIn(op.email.toUpperCase(), PASSWORD);
    expect(res.status, res.text).to.equal(201);
    const setCookie = res.headers.get('set-cookie')!;
    expect(setCookie).to.match(/^coupons_session=cos_[\w-]{43}; Max-Age=43200; Path=\/admin; HttpOnly; SameSite=Strict$/);
    expect(res.headers.get('cache-control')).to.equal('no-store');
    expect(res.body.operator).to.include({ id: op.id, email: op.email, role: 'editor' });
    expect(res.body.csrf_token).to.match(/^[\w-]{43}$/);
    expect(JSON.stringify(res.body)).to.not.include(cookieOf(res).split('=')[1]);
    const cookie = cookieOf(res);
    expect((await withCookie(cookie, 'GET', '/operators/me')).body).to.include({ kind: 'operator', id: op.id });
    const app = { name: `By cookie ${seq}` };
    const without = await withCookie(cookie, 'POST', '/applications', app);
    expect(without.status).to.equal(403);
    expect(without.body.details).to.equal('a change made with a session cookie needs its CSRF token in x-csrf-token');
    const wrong = await withCookie(cookie, 'POST', '/applications', app, { 'x-csrf-token': 'x'.repeat(43) });
    expect(wrong.status).to.equal(403);
    const made = await withCookie(cookie, 'POST', '/applications', app, { 'x-csrf-token': res.body.csrf_token });
    expect(made.status, made.text).to.equal(201);
    // The change is the operator's in the audit log.
    const log = await call(api().url, 'GET', `/admin/audit?target_id=${made.body.id}`, { headers: ADMIN_HEADERS });
    expect(log.body.entries[0].actor).to.include({ kind: 'operator', operator_id: op.id, email: op.email });
  });

  it('when sessions are listed, revoked and signed out, then a revoked or signed-out cookie is refused at once', async () => {
    const op = await newOperator();
    const [a, b] = [await signIn(op.email, PASSWORD), await signIn(op.email, PASSWORD)];
    const [ca, cb] = [cookieOf(a), cookieOf(b)];
    const listed = await withCookie(ca, 'GET', `/operators/${op.id}/sessions`);
    expect(listed.body.sessions.map((s: any) => [s.id, s.current])).to.deep.equal([
      [a.body.session.id, true],
      [b.body.session.id, false],
    ]);
    const revoked = await withCookie(ca, 'DELETE', `/operators/${op.id}/sessions/${b.body.session.id}`, undefined, {
      'x-csrf-token': a.body.csrf_token,
    });
    expect(revoked.status, revoked.text).to.equal(200);
    expect((await withCookie(cb, 'GET', '/operators/me')).status).to.equal(401);
    const out = await withCookie(ca, 'DELETE', '/sessions/current', undefined, { 'x-csrf-token': a.body.csrf_token });
    expect(out.status, out.text).to.equal(200);
    expect(out.headers.get('set-cookie')).to.match(/^coupons_session=; Max-Age=0; Path=\/admin; HttpOnly; SameSite=Strict$/);
    expect((await withCookie(ca, 'GET', '/operators/me')).status).to.equal(401);
  });

  it('when a session outlives SESSION_MAX_AGE_MS, or a disabled operator signs in, then it is refused', async () => {
    const short = await startTestApi({ SESSION_MAX_AGE_MS: '1500' });
    try {
      const op = await newOperator(short.url);
      const res = await signIn(op.email, PASSWORD, short.url);
      expect(res.status).to.equal(201);
      const cookie = cookieOf(res);
      expect((await call(short.url, 'GET', '/admin/operators/me', { headers: { cookie } })).status).to.equal(200);
      await new Promise((r) => setTimeout(r, 1600));
      expect((await call(short.url, 'GET', '/admin/operators/me', { headers: { cookie } })).status).to.equal(401);
      await call(short.url, 'PATCH', `/admin/operators/${op.id}`, { headers: ADMIN_HEADERS, body: { disabled: true } });
      const disabled = await signIn(op.email, PASSWORD, short.url);
      expect([disabled.status, disabled.body.details]).to.deep.equal([401, 'wrong e-mail or password']);
    } finally {
      await short.close();
    }
  });

  describe('throttling, on two API replicas sharing Redis', () => {
    // Their own counts in Redis (a prefix of their own), shared by both replicas.
    const throttled = {
      LOGIN_FAILURES_PER_ACCOUNT: '5',
      LOGIN_FAILURES_PER_ADDRESS: '12',
      LOGIN_LOCK_SECONDS: '600',
      QUEUE_PREFIX: `signin-${seq}`,
    };
    let replica: TestApi;
    before(async () => {
      replica = await startTestApi(throttled);
    });
    after(() => replica.close());

    it('when an e-mail fails 5 times across both replicas, then the next sign-in is 429 with Retry-After on either — even with the right password, even for an unknown e-mail', async () => {
      const op = await newOperator(replica.url);
      const other = await startTestApi(throttled);
      try {
        const urls = [replica.url, other.url];
        for (let i = 0; i < 5; i++) expect((await signIn(op.email, 'wrong password', urls[i % 2])).status).to.equal(401);
        for (const url of urls) {
          const refused = await signIn(op.email, PASSWORD, url);
          expect(refused.status).to.equal(429);
          expect(refused.body.details).to.match(/^too many failed sign-ins: retry in \d+ s$/);
          expect(Number(refused.headers.get('retry-after'))).to.be.within(1, 600);
        }
        const unknown = `nobody-${seq}@shop.example`;
        for (let i = 0; i < 5; i++) expect((await signIn(unknown, 'x', urls[i % 2])).status).to.equal(401);
        expect((await signIn(unknown, 'x', other.url)).status).to.equal(429);
      } finally {
        await other.close();
      }
    });

    it('when one address fails past its own limit with different e-mails, then it is refused for any e-mail', async () => {
      // The previous test's 10 failures came from this address too: 2 more reach 12.
      for (let i = 0; i < 2; i++) await signIn(`spray-${i}-${seq}@shop.example`, 'x', replica.url);
      const op = await newOperator(replica.url);
      expect((await signIn(op.email, PASSWORD, replica.url)).status).to.equal(429);
    });
  });

  it('when 1,000 sign-ins with an unknown e-mail and 1,000 with a wrong password are timed, then status, body and time cannot tell them apart', async function () {
    this.timeout(600_000);
    // Throttling off (its own counts), and scrypt at 2^10: both paths do the same one check at the
    // configured cost whatever it is, so a cheaper cost proves the same and lets 2,000 tries run in seconds.
    const loose = await startTestApi({
      LOGIN_FAILURES_PER_ACCOUNT: '100000',
      LOGIN_FAILURES_PER_ADDRESS: '100000',
      PASSWORD_HASH_COST: '10',
      QUEUE_PREFIX: `signin-timing-${seq}`,
    });
    try {
      const op = await newOperator(loose.url);
      const kinds = { unknown: [] as number[], wrong: [] as number[] };
      const bodies = new Set<string>();
      // Interleaved, 4 at once: both kinds meet the same machine at the same moments.
      const one = async (i: number) => {
        const kind = i % 2 ? 'unknown' : 'wrong';
        const email = kind === 'unknown' ? `nobody-${i}-${seq}@shop.example` : op.email;
        const t0 = performance.now();
        const res = await signIn(email, `wrong password ${i}`, loose.url);
        kinds[kind].push(performance.now() - t0);
        const { request_id: _id, ...body } = res.body as Record<string, unknown>;
        bodies.add(`${res.status} ${JSON.stringify(body)}`);
      };
      for (let i = 0; i < 2000; i += 4) await Promise.all([i, i + 1, i + 2, i + 3].map(one));
      expect([...bodies]).to.deep.equal(['401 {"code":401,"message":"unauthorized","details":"wrong e-mail or password"}']);
      const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
      // Noise: how far the medians of two halves of the same kind lie apart (odd and even tries).
      const halves = (xs: number[]) => Math.abs(median(xs.filter((_, i) => i % 2)) - median(xs.filter((_, i) => !(i % 2))));
      const noise = Math.max(halves(kinds.unknown), halves(kinds.wrong));
      const gap = Math.abs(median(kinds.unknown) - median(kinds.wrong));
      const said = `medians: unknown ${median(kinds.unknown).toFixed(1)} ms, wrong password ${median(kinds.wrong).toFixed(1)} ms; gap ${gap.toFixed(2)} ms, noise ${noise.toFixed(2)} ms`;
      console.log(`      ${said}`);
      // Within noise: the gap is at most 3 times what the same kind shows between its halves, plus 1 ms.
      expect(gap, said).to.be.at.most(3 * noise + 1);
    } finally {
      await loose.close();
    }
  });
});
