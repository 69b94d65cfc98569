/**
 * The outbound HTTP side of webhooks: one POST with a time budget, to a destination the
 * {@link DestinationPolicy} allows. The policy is applied to the address each connection is
 * actually opened to (a custom `lookup`), not only to what the name resolved to at registration,
 * so DNS rebinding to a private address is refused. Redirects are not followed.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { ALLOW_RESERVED_HINT, literalAddressOf, parseWebhookUrl, type DestinationPolicy } from '../domain/webhook-destination.js';

/** The answer of one attempt: the receiver's status, or why there is none. */
export interface SendResult {
  /** The HTTP status, or null when no answer came (refused destination, network error, timeout). */
  status: number | null;
  /** Null for a 2xx; otherwise what went wrong, short and safe to show to operators. */
  error: string | null;
}

export type WebhookSender = (url: string, body: string, headers: Record<string, string>) => Promise<SendResult>;

class DestinationRefused extends Error {
  override name = 'DestinationRefused';
}

/** Resolves like dns.lookup, then refuses when any address of the name is not allowed. */
function guardedLookup(policy: DestinationPolicy): LookupFunction {
  return ((hostname: string, options: { all?: boolean; family?: number }, callback: (...args: unknown[]) => void) => {
    dnsLookup(hostname, { all: true, family: options.family ?? 0 }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err);
      const refusal = addresses.map((a) => policy.refusal(a.address)).find((r) => r !== null);
      if (refusal) return callback(new DestinationRefused(`destination refused: ${hostname} resolves to ${refusal}`));
      if (options.all) return callback(null, addresses);
      callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  }) as LookupFunction;
}

/**
 * Null when `rawUrl` may be registered, else why not: a bad URL, an IP literal the policy
 * refuses, or a host name that does not resolve or resolves to a refused address.
 */
export async function destinationRefusal(rawUrl: string, policy: DestinationPolicy): Promise<string | null> {
  const parsed = parseWebhookUrl(rawUrl);
  if (!parsed.ok) return parsed.reason;
  const literal = literalAddressOf(parsed.url);
  if (literal) {
    const refusal = policy.refusal(literal);
    return refusal && `url ${refusal}; ${ALLOW_RESERVED_HINT}`;
  }
  return new Promise((resolve) =>
    guardedLookup(policy)(parsed.url.hostname, { all: true }, (err: NodeJS.ErrnoException | null) => {
      if (!err) return resolve(null);
      resolve(
        err instanceof DestinationRefused
          ? `url ${err.message}; ${ALLOW_RESERVED_HINT}`
          : `url host ${parsed.url.hostname} does not resolve`,
      );
    }),
  );
}

/** A sender bound to a policy and a time budget per attempt (connect, send, status line). */
export function createWebhookSender(opts: { policy: DestinationPolicy; timeoutMs: number; userAgent?: string }): WebhookSender {
  const lookup = guardedLookup(opts.policy);
  const agents = { 'http:': new http.Agent({ keepAlive: true }), 'https:': new https.Agent({ keepAlive: true }) };
  return (rawUrl, body, headers) =>
    new Promise<SendResult>((resolve) => {
      const parsed = parseWebhookUrl(rawUrl);
      if (!parsed.ok) return resolve({ status: null, error: parsed.reason });
      const url = parsed.url;
      const literal = literalAddressOf(url);
      // The lookup guard does not run for IP literals: check them here.
      const refusal = literal ? opts.policy.refusal(literal) : null;
      if (refusal) return resolve({ status: null, error: `destination refused: ${refusal}` });

      let settled = false;
      const settle = (r: SendResult) => {
        if (settled) return;
        settled = true;
        resolve(r);
      };
      const client = url.protocol === 'https:' ? https : http;
      const req = client.request(
        url,
        {
          method: 'POST',
          agent: agents[url.protocol as 'http:' | 'https:'],
          lookup,
          headers: { ...headers, 'content-length': String(Buffer.byteLength(body)), 'user-agent': opts.userAgent ?? 'coupons-webhooks/1' },
        },
        (res) => {
          const status = res.statusCode ?? 0;
          // The answer's body is not read: drain it so the connection can be reused.
          res.resume();
          res.on('error', () => undefined);
          const ok = status >= 200 && status < 300;
          settle({
            status,
            error: ok
              ? null
              : status >= 300 && status < 400
                ? `receiver answered ${status} (redirects are not followed)`
                : `receiver answered ${status}`,
          });
        },
      );
      // Also ends an answer whose body never finishes, so it cannot hold a connection forever.
      const timer = setTimeout(() => {
        settle({ status: null, error: `no answer within ${opts.timeoutMs} ms` });
        req.destroy();
      }, opts.timeoutMs);
      req.on('close', () => clearTimeout(timer));
      req.on('error', (err: NodeJS.ErrnoException) =>
        settle({ status: null, error: err instanceof DestinationRefused ? err.message : `network error: ${err.code ?? err.message}` }),
      );
      req.end(body);
    });
}
