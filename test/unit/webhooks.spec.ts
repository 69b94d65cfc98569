import { expect } from 'chai';
import { parseConfig } from '../../shared/config.js';
import { eventIdOf, eventOfBody, renderEvent, subscribes } from '../../shared/domain/events.js';
import { DestinationPolicy, literalAddressOf, parseWebhookUrl } from '../../shared/domain/webhook-destination.js';
import { decideAfterAttempt, retryDelayMs, retrySchedule, shortestRetryWindowMs } from '../../shared/domain/webhook-retry.js';
import { Webhook } from 'standardwebhooks';
import { verifyWebhook, WebhookVerificationError, type VerifyOptions } from '../../client/src/webhooks.js';
import { generateWebhookSecret, signatureHeaders } from '../../shared/domain/webhook-signature.js';

const HOUR = 3_600_000;

describe('webhook domain', () => {
  describe('event ids', () => {
    it('when the same change is recorded twice, then it gets the same id; another change, type or application gets another', () => {
      const id = eventIdOf('app1', 'redemption.completed', 'redemption:c:o:1');
      expect(id).to.match(/^evt_[0-9a-f]{32}$/);
      expect(eventIdOf('app1', 'redemption.completed', 'redemption:c:o:1')).to.equal(id);
      expect(eventIdOf('app1', 'redemption.reverted', 'redemption:c:o:1')).to.not.equal(id);
      expect(eventIdOf('app1', 'redemption.completed', 'redemption:c:o:2')).to.not.equal(id);
      expect(eventIdOf('app2', 'redemption.completed', 'redemption:c:o:1')).to.not.equal(id);
    });

    it('when an endpoint subscribes to `*` or to the type, then it receives it; otherwise not', () => {
      expect(subscribes(['*'], 'redemption.refused')).to.equal(true);
      expect(subscribes(['redemption.refused'], 'redemption.refused')).to.equal(true);
      expect(subscribes(['redemption.completed'], 'redemption.refused')).to.equal(false);
    });

    it('when an event is rendered, then the body has the documented envelope, the same bytes every time', () => {
      const e = {
        id: 'evt_1',
        applicationId: 'a',
        customerId: 'c',
        type: 'wallet.transaction.completed' as const,
        sequence: 3,
        requestId: 'r',
        createdAt: new Date('2026-01-02T03:04:05.678Z'),
        data: { source_id: 's', customer_id: 'c' } as never,
      };
      expect(JSON.parse(renderEvent(e))).to.deep.equal({
        id: 'evt_1',
        object: 'event',
        type: 'wallet.transaction.completed',
        created: '2026-01-02T03:04:05.678Z',
        application_id: 'a',
        request_id: 'r',
        sequence: 3,
        data: { source_id: 's', customer_id: 'c' },
      });
      expect(renderEvent(e)).to.equal(renderEvent({ ...e }));
    });

    it('when a body is read back into its event, then the event renders to the same bytes', () => {
      const e = {
        id: 'evt_2',
        applicationId: 'a',
        customerId: 'c',
        type: 'wallet.transaction.completed' as const,
        sequence: 7,
        requestId: 'r',
        createdAt: new Date('2026-01-02T03:04:05.006Z'),
        data: { source_id: 's', customer_id: 'c', points: 1.5, previous_loyalty_points: 0.1, loyalty_points: 1.6, order_id: null } as never,
      };
      const body = renderEvent(e);
      expect(eventOfBody(body)).to.deep.equal(e);
      expect(renderEvent(eventOfBody(body))).to.equal(body);
    });
  });

  describe('signatures', () => {
    const body = '{"id":"evt_1"}';
    const now = 1_800_000_000;
    const at = (seconds: number) => ({ now: new Date(seconds * 1000) });
    const secret = 'whsec_' + Buffer.alloc(32, 7).toString('base64');
    const other = 'whsec_' + Buffer.alloc(32, 9).toString('base64');
    const headers = signatureHeaders(body, 'evt_1', [secret], now);
    const verify = (h: Record<string, string>, b = body, options: Partial<VerifyOptions> = {}) =>
      verifyWebhook(b, h, { secrets: secret, ...at(now), ...options });
    const failure = (run: () => unknown) => {
      try {
        run();
      } catch (err) {
        expect(err).to.be.instanceOf(WebhookVerificationError);
        return (err as WebhookVerificationError).reason;
      }
      return 'verified';
    };

    it('when a body is signed, then both schemes have the documented shape and the client verifies it, returning the event', () => {
      expect(headers['coupons-signature']).to.match(/^t=1800000000,v1=[0-9a-f]{64}$/);
      expect(headers).to.include({ 'webhook-id': 'evt_1', 'webhook-timestamp': '1800000000' });
      expect(headers['webhook-signature']).to.match(/^v1,[A-Za-z0-9+/]{43}=$/);
      expect(verify(headers)).to.deep.equal({ id: 'evt_1' });
      const { ['coupons-signature']: _ours, ...standardOnly } = headers;
      expect(verify(standardOnly)).to.deep.equal({ id: 'evt_1' });
    });

    it('when the Standard Webhooks library verifies a delivery, then it accepts ours (the scheme is interoperable)', () => {
      const wh = new Webhook(secret);
      // Signed at another time than now: the library refuses it as a replay, as verifyWebhook does.
      expect(() => wh.verify(body, headers)).to.throw();
      const fresh = signatureHeaders(body, 'evt_1', [secret], Math.floor(Date.now() / 1000));
      expect(wh.verify(body, fresh)).to.deep.equal({ id: 'evt_1' });
      expect(() => new Webhook(other).verify(body, fresh)).to.throw();
    });

    const refusals: [string, () => unknown, string][] = [
      ['the body was changed', () => verify(headers, '{"id":"evt_2"}'), 'signature_mismatch'],
      ['the secret is another', () => verify(headers, body, { secrets: other }), 'signature_mismatch'],
      [
        'the timestamp is older than the 300 s window (a replayed delivery)',
        () => verify(headers, body, at(now + 301)),
        'timestamp_outside_tolerance',
      ],
      ['the timestamp is in the future beyond the window', () => verify(headers, body, at(now - 301)), 'timestamp_outside_tolerance'],
      [
        'a tolerance of 60 s and a delivery 61 s old',
        () => verify(headers, body, { ...at(now + 61), toleranceSeconds: 60 }),
        'timestamp_outside_tolerance',
      ],
      [
        'the timestamp was changed',
        () => verify({ ...headers, 'coupons-signature': headers['coupons-signature']!.replace('t=1800000000', 't=1800000001') }),
        'signature_mismatch',
      ],
      ['there is no signature at all', () => verify({}), 'no_signature'],
      ['the signature is not hex', () => verify({ 'coupons-signature': 't=1800000000,v1=zz' }), 'signature_mismatch'],
      ['the timestamp is not a number', () => verify({ 'coupons-signature': 't=soon,v1=00' }), 'bad_timestamp'],
      [
        'only the standard headers, signed with another secret',
        () => verify({ ...signatureHeaders(body, 'evt_1', [other], now), 'coupons-signature': '' }),
        'signature_mismatch',
      ],
      [
        'a verified signature over a body that is not JSON',
        () => verify(signatureHeaders('not json', 'e', [secret], now), 'not json'),
        'bad_body',
      ],
    ];
    for (const [label, run, reason] of refusals) {
      it(`when ${label}, then verification fails with ${reason}`, () => {
        expect(failure(run)).to.equal(reason);
      });
    }

    it('when a secret is being rotated, then each scheme carries one signature per secret and either secret verifies', () => {
      const h = signatureHeaders(body, 'evt_1', [secret, other], now);
      expect(h['coupons-signature']!.split(',').filter((p) => p.startsWith('v1='))).to.have.length(2);
      expect(h['webhook-signature']!.split(' ')).to.have.length(2);
      expect(failure(() => verify(h))).to.equal('verified');
      expect(failure(() => verify(h, body, { secrets: other }))).to.equal('verified');
      expect(failure(() => verify(h, body, { secrets: ['whsec_none', other] }))).to.equal('verified');
      expect(failure(() => verify(h, body, { secrets: 'whsec_none' }))).to.equal('signature_mismatch');
    });

    it('when a secret is generated, then it is whsec_ and the standard base64 of 32 bytes (what Standard Webhooks libraries decode)', () => {
      const s = generateWebhookSecret();
      expect(s).to.match(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(Buffer.from(s.slice(6), 'base64')).to.have.length(32);
    });
  });

  describe('retry schedule', () => {
    const c = parseConfig({});
    const defaults = { baseMs: c.webhookRetryBaseMs, maxMs: c.webhookRetryMaxMs, maxAttempts: c.webhookMaxAttempts };

    it('when the defaults apply, then delays double from 1 min to a 6 h cap and the shortest window covers more than 24 h', () => {
      const minutes = retrySchedule(defaults).map((ms) => ms / 60_000);
      expect(minutes).to.deep.equal([1, 2, 4, 8, 16, 32, 64, 128, 256, 360, 360, 360, 360]);
      expect(shortestRetryWindowMs(defaults)).to.be.above(24 * HOUR);
    });

    const decisions: [string, { status: number | null; error: string | null }, number, ReturnType<typeof decideAfterAttempt>][] = [
      ['a 2xx', { status: 204, error: null }, 1, { action: 'succeeded' }],
      ['a 2xx on the last attempt', { status: 200, error: null }, 14, { action: 'succeeded' }],
      ['410 Gone', { status: 410, error: 'status 410' }, 1, { action: 'gone', reason: 'receiver answered 410 Gone: endpoint disabled' }],
      [
        '410 on the last attempt',
        { status: 410, error: 'status 410' },
        14,
        { action: 'gone', reason: 'receiver answered 410 Gone: endpoint disabled' },
      ],
      ['a 500', { status: 500, error: 'status 500' }, 1, { action: 'retry', delayMs: 60_000, error: 'status 500' }],
      ['no answer', { status: null, error: 'timeout' }, 3, { action: 'retry', delayMs: 240_000, error: 'timeout' }],
      [
        'a 500 on the last attempt',
        { status: 500, error: 'status 500' },
        14,
        { action: 'give-up', reason: 'gave up after 14 attempts: status 500' },
      ],
    ];
    for (const [what, result, attempt, expected] of decisions)
      it(`when attempt ${attempt} gets ${what}, then ${expected.action}`, () => {
        expect(decideAfterAttempt(result, attempt, defaults, () => 0.5)).to.deep.equal(expected);
      });

    it('when jitter is drawn, then each delay stays within ±10 % of its nominal value', () => {
      expect(retryDelayMs(3, defaults, () => 0)).to.equal(216_000);
      expect(retryDelayMs(3, defaults, () => 0.5)).to.equal(240_000);
      expect(retryDelayMs(3, defaults, () => 0.999_999)).to.be.at.most(264_000);
      expect(retryDelayMs(40, defaults, () => 0.5)).to.equal(6 * HOUR);
    });
  });

  describe('destinations', () => {
    const strict = new DestinationPolicy([]);
    const table: [string, RegExp | null][] = [
      ['93.184.216.34', null],
      ['2606:4700::1111', null],
      ['172.32.0.1', null],
      ['127.0.0.1', /loopback/],
      ['127.255.0.9', /loopback/],
      ['::1', /loopback/],
      ['::ffff:127.0.0.1', /loopback/],
      ['10.1.2.3', /private/],
      ['172.16.0.1', /private/],
      ['192.168.1.1', /private/],
      ['fd12:3456::1', /private/],
      ['169.254.169.254', /link-local/],
      ['fe80::1', /link-local/],
      ['100.64.0.1', /shared/],
      ['0.0.0.0', /this network/],
      ['::', /unspecified/],
      ['224.0.0.1', /multicast/],
      // IPv6 spellings of refused IPv4 addresses: each form that embeds one.
      ['64:ff9b::7f00:1', /embeds 127\.0\.0\.1, a loopback/], // NAT64 (RFC 6052)
      ['64:ff9b::a9fe:a9fe', /embeds 169\.254\.169\.254, a link-local/],
      ['64:ff9b::c0a8:101', /embeds 192\.168\.1\.1, a private/],
      ['2002:7f00:1::', /embeds 127\.0\.0\.1, a loopback/], // 6to4
      ['2002:a00:1:1234::1', /embeds 10\.0\.0\.1, a private/],
      ['2002:a9fe:a9fe::', /embeds 169\.254\.169\.254, a link-local/],
      ['2001:0:7f00:1::1', /embeds 127\.0\.0\.1, a loopback/], // Teredo server
      ['2001:0:4136:e378:8000:63bf:80ff:fffe', /embeds 127\.0\.0\.1, a loopback/], // Teredo client (inverted)
      ['2001:0:4136:e378:8000:63bf:f5ff:fffe', /embeds 10\.0\.0\.1, a private/],
      ['::7f00:1', /embeds 127\.0\.0\.1, a loopback/], // IPv4-compatible
      ['::a9fe:a9fe', /embeds 169\.254\.169\.254, a link-local/],
      ['::ffff:0:7f00:1', /embeds 127\.0\.0\.1, a loopback/], // IPv4-translated (RFC 6145)
      ['::ffff:a9fe:a9fe', /link-local/], // IPv4-mapped, hex spelling
      ['64:ff9b::5db8:d822', null], // NAT64 of a public address
      ['2002:5db8:d822::1', null], // 6to4 of a public address
      ['2001:0:4136:e378:8000:63bf:a247:27dd', null], // Teredo of public addresses
    ];
    for (const [address, refused] of table) {
      it(`when a delivery would connect to ${address}, then it is ${refused ? 'refused' : 'allowed'}`, () => {
        const refusal = strict.refusal(address);
        if (refused) expect(refusal).to.match(refused);
        else expect(refusal).to.equal(null);
      });
    }

    it('when the operator allows a CIDR, then only that range opens', () => {
      const loopback = new DestinationPolicy(['127.0.0.0/8']);
      expect(loopback.refusal('127.0.0.1')).to.equal(null);
      expect(loopback.refusal('::ffff:127.0.0.1')).to.equal(null);
      expect(loopback.refusal('::1')).to.match(/loopback/);
      expect(loopback.refusal('10.0.0.1')).to.match(/private/);
      // An embedded address is judged as the address itself.
      expect(loopback.refusal('64:ff9b::7f00:1')).to.equal(null);
      expect(loopback.refusal('64:ff9b::a00:1')).to.match(/embeds 10\.0\.0\.1, a private/);
    });

    const urls: [string, string | null][] = [
      ['https://hooks.example.com/coupons?x=1', null],
      ['http://hooks.example.com:8080/', null],
      ['ftp://hooks.example.com/', 'url must use http or https'],
      ['file:///etc/passwd', 'url must use http or https'],
      ['javascript:alert(1)', 'url must use http or https'],
      ['hooks.example.com/path', 'url must be an absolute URL'],
      ['https://user:pass@hooks.example.com/', 'url must not contain credentials'],
      ['https://hooks.example.com/#frag', 'url must not contain a fragment'],
    ];
    for (const [url, reason] of urls) {
      it(`when ${url} is registered, then it is ${reason ? `refused: ${reason}` : 'accepted'}`, () => {
        const parsed = parseWebhookUrl(url);
        if (reason) expect(parsed).to.deep.equal({ ok: false, reason });
        else expect(parsed.ok).to.equal(true);
      });
    }

    it('when a URL names its host as an IP in any spelling, then the literal address is what gets checked', () => {
      const literal = (u: string) => literalAddressOf((parseWebhookUrl(u) as { url: URL }).url);
      expect(literal('http://[::1]:8080/')).to.equal('::1');
      expect(literal('http://2130706433/')).to.equal('127.0.0.1');
      expect(literal('http://0x7f.1/')).to.equal('127.0.0.1');
      expect(literal('http://hooks.example.com/')).to.equal(null);
    });
  });

  describe('configuration', () => {
    it('when WEBHOOK_ALLOWED_CIDRS lists CIDRs, then they are parsed; when one is malformed, then start-up fails naming it', () => {
      expect(parseConfig({ WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8, ::1/128' }).webhookAllowedCidrs).to.deep.equal(['127.0.0.0/8', '::1/128']);
      expect(parseConfig({}).webhookAllowedCidrs).to.deep.equal([]);
      expect(parseConfig({ WEBHOOK_ALLOWED_CIDRS: '' }).webhookAllowedCidrs).to.deep.equal([]);
      for (const bad of ['127.0.0.1', '10.0.0.0/33', 'localhost/8'])
        expect(() => parseConfig({ WEBHOOK_ALLOWED_CIDRS: bad }), bad).to.throw(/^Invalid configuration: WEBHOOK_ALLOWED_CIDRS:/);
    });
  });
});
