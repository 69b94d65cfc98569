/**
 * The audit log (docs/admin-api.md#audit-log): every admin change records who, when, the action,
 * the target and the fields that changed (secrets never); the log is listed with filters and
 * pages; and a process SIGKILLed between a change and its entry's commit leaves both visible or
 * neither (real API processes, AUDIT_FAILPOINT).
 */
import { expect } from 'chai';
import { ADMIN_HEADERS } from '../support/admin.js';
import { assertMatchesSpec } from '../support/openapi.js';
import { call, TEST_ADMIN_TOKEN, useTestApi } from '../support/context.js';
import { startApiProcess } from '../support/service-process.js';

describe('admin API: the audit log', function () {
  this.timeout(120_000);
  const api = useTestApi();
  const seq = `${process.pid}-${Date.now()}`;
  const admin = (method: string, path: string, body?: unknown, headers = ADMIN_HEADERS) =>
    call(api().url, method, `/admin${path}`, { headers, body });
  async function must(method: string, path: string, body?: unknown, headers = ADMIN_HEADERS) {
    const res = await admin(method, path, body, headers);
    expect(res.status, `${method} ${path}: ${res.text}`).to.be.within(200, 299);
    return res.body;
  }
  const log = async (query: string) => {
    const body = (await must('GET', `/audit?${query}`)) as { entries: any[]; next_cursor: string | null };
    assertMatchesSpec('GET', '/admin/audit', 200, body);
    return { data: body.entries, next: body.next_cursor };
  };

  it('when a campaign is created, updated, archived and deleted, then each change has its entry, field by field, newest first', async () => {
    const app = await must('POST', '/applications', { name: `Audit ${seq}` });
    const created = await must('POST', `/applications/${app.id}/campaigns`, {
      name: 'Ten off',
      code: `TEN-${seq}`,
      discount: { kind: 'discount', type: 'flat', value: 1000 },
    });
    await must('PATCH', `/applications/${app.id}/campaigns/${created.id}`, {
      name: 'Twelve off',
      discount: { kind: 'discount', type: 'flat', value: 1200 },
    });
    await must('POST', `/applications/${app.id}/campaigns/${created.id}/archive`);
    await must('DELETE', `/applications/${app.id}/campaigns/${created.id}`);
    const { data } = await log(`target_id=${created.id}`);
    expect(data.map((e) => e.action)).to.deep.equal(['campaign.delete', 'campaign.archive', 'campaign.update', 'campaign.create']);
    const [del, archive, update, create] = data;
    for (const e of data) {
      expect(e.actor).to.deep.equal({ kind: 'admin_token', operator_id: null, email: null, token_id: null });
      expect(e.target).to.deep.equal({ type: 'campaign', id: created.id, application: app.id });
      expect(Date.parse(e.at)).to.be.closeTo(Date.now(), 60_000);
      expect(e.recovered).to.equal(false);
    }
    expect(create.changes.name).to.deep.equal({ before: null, after: 'Ten off' });
    expect(update.changes).to.have.all.keys('name', 'discount');
    expect(update.changes.name).to.deep.equal({ before: 'Ten off', after: 'Twelve off' });
    // Fields as stored: amounts in hundredths.
    expect(update.changes.discount.before.value).to.equal(100_000);
    expect(update.changes.discount.after.value).to.equal(120_000);
    expect(Object.keys(archive.changes)).to.deep.equal(['archivedAt']);
    expect(archive.changes.archivedAt.before).to.equal(null);
    expect(Date.parse(archive.changes.archivedAt.after)).to.be.closeTo(Date.now(), 60_000);
    expect(del.changes.name).to.deep.equal({ before: 'Twelve off', after: null });
  });

  it('when a secret is rotated or an operator given a password, then the entry says the secret changed and never shows it', async () => {
    const app = await must('POST', '/applications', { name: `Secrets ${seq}` });
    const rotated = await must('POST', `/applications/${app.id}/rotate-secret`);
    const [entry] = (await log(`target_id=${app.id}&action=application.rotate_secret`)).data;
    expect(entry.changes.secretHash).to.deep.equal({ before: '[redacted]', after: '[redacted]' });
    const password = `pw-${seq}-long-enough`;
    const op = await must('POST', '/operators', { email: `audit-${seq}@shop.example`, name: 'A', role: 'viewer', password });
    const [opEntry] = (await log(`target_id=${op.id}`)).data;
    expect(opEntry.action).to.equal('operator.create');
    expect(opEntry.changes.passwordHash).to.deep.equal({ before: null, after: '[redacted]' });
    const everything = JSON.stringify((await log('limit=500')).data);
    for (const secret of [rotated.secret, app.secret, password]) expect(everything).to.not.include(secret);
  });

  it('when an operator changes something with a personal token, then the entry names the operator and the token', async () => {
    const op = await must('POST', '/operators', { email: `editor-${seq}@shop.example`, name: 'Ed', role: 'editor' });
    const token = await must('POST', `/operators/${op.id}/tokens`, { name: 'script' });
    const headers = { authorization: `Bearer ${token.token}` };
    const app = await must('POST', '/applications', { name: `Ed's ${seq}` }, headers);
    const { data } = await log(`operator=${op.id}`);
    expect(data.map((e) => [e.action, e.target.id])).to.deep.equal([['application.create', app.id]]);
    expect(data[0].actor).to.deep.equal({ kind: 'operator', operator_id: op.id, email: `editor-${seq}@shop.example`, token_id: token.id });
  });

  it('when many customers are upserted or codes added, then the entry records the request', async () => {
    const app = await must('POST', '/applications', { name: `Many ${seq}` });
    await must('POST', `/applications/${app.id}/customers`, { customers: [{ source_id: 'm1', name: 'M One' }, { source_id: 'm2' }] });
    const [upsert] = (await log(`application=${app.id}&action=customer.upsert`)).data;
    expect(upsert.changes.request.after).to.deep.equal({ customers: [{ source_id: 'm1', name: 'M One' }, { source_id: 'm2' }] });
  });

  it('when the log is filtered by time and paged, then pages hold distinct entries in order, and bad filters are 400', async () => {
    const from = new Date().toISOString();
    const app = await must('POST', '/applications', { name: `Pages ${seq}` });
    for (let i = 0; i < 5; i++) await must('PATCH', `/applications/${app.id}`, { name: `Pages ${seq} ${i}` });
    const seen: string[] = [];
    let next: string | null = null;
    do {
      const page: { data: any[]; next: string | null } = await log(
        `application=${app.id}&from=${from}&limit=2${next ? `&cursor=${next}` : ''}`,
      );
      seen.push(...page.data.map((e) => e.changes.name?.after as string));
      next = page.next;
    } while (next);
    expect(seen).to.deep.equal([4, 3, 2, 1, 0].map((i) => `Pages ${seq} ${i}`).concat(`Pages ${seq}`));
    for (const bad of ['limit=0', 'from=yesterday', 'target_type=planet', 'cursor=xyz', 'colour=red'])
      expect((await admin('GET', `/audit?${bad}`)).status, bad).to.equal(400);
  });

  describe('a process killed between the change and its entry (SIGKILL)', () => {
    async function killedDuring(failpoint: 'before-change' | 'after-change') {
      const app = await must('POST', '/applications', { name: `Killed ${failpoint} ${seq}` });
      const doomed = await startApiProcess({ AUDIT_FAILPOINT: failpoint, ADMIN_TOKEN: TEST_ADMIN_TOKEN });
      const cut = await call(doomed.url!, 'PATCH', `/admin/applications/${app.id}`, {
        headers: ADMIN_HEADERS,
        body: { name: 'renamed' },
      }).then(
        (r) => `answered ${r.status}`,
        (err: Error) => `cut: ${err.message}`,
      );
      await doomed.kill().catch(() => undefined);
      expect(cut, 'the API died mid-change').to.match(/^cut/);
      const stored = (await must('GET', `/applications?limit=1000`)).applications.find((a: any) => a.id === app.id);
      const entries = (await log(`target_id=${app.id}&action=application.update`)).data;
      return { name: stored.name as string, entries };
    }

    it('when it dies after the change, then the change and its entry are both visible (recovered from the stamp)', async () => {
      const { name, entries } = await killedDuring('after-change');
      expect(name).to.equal('renamed');
      expect(entries).to.have.length(1);
      expect(entries[0].recovered).to.equal(true);
      expect(entries[0].changes.name.after).to.equal('renamed');
    });

    it('when it dies before the change, then neither the change nor its entry is visible', async () => {
      const { name, entries } = await killedDuring('before-change');
      expect(name).to.not.equal('renamed');
      expect(entries).to.have.length(0);
    });
  });
});
