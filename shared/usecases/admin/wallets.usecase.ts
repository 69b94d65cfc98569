/** Admin use cases on wallets and their ledgers. */
import Joi from 'joi';
import { isDuplicateKeyError } from '../../data/db.js';
import { fromHundredths } from '../../domain/points.js';
import { isValidTimeZone } from '../../domain/periods.js';
import type { Services } from '../../services.js';
import { presentWallet } from '../wallet-operation.usecase.js';
import { adminInvalid, adminNotFound, validateInput } from './admin-errors.js';
import { requireApplication } from './applications.usecase.js';

type Deps = Pick<Services, 'repos'>;

const createSchema = Joi.object({
  wallet_id: Joi.string()
    .pattern(/^[A-Za-z0-9_-]{1,64}$/)
    .required(),
  wallet_name: Joi.string().min(1).max(200).required(),
  currency: Joi.string()
    .pattern(/^[A-Z]{3}$/, 'ISO 4217 code')
    .required(),
  singular_unit_name: Joi.string().min(1).max(50).required(),
  plural_unit_name: Joi.string().min(1).max(50).required(),
  timezone: Joi.string()
    .custom((v: string) => {
      if (!isValidTimeZone(v)) throw new Error('unknown');
      return v;
    })
    .messages({ 'any.custom': '{{#label}} must be an IANA timezone' })
    .required(),
});

const present = presentWallet;

export async function createWallet(deps: Deps, applicationId: string, input: unknown) {
  await requireApplication(deps, applicationId);
  const v = validateInput(createSchema, input) as Record<string, string>;
  try {
    const w = await deps.repos.wallets.create(applicationId, {
      walletId: v.wallet_id!,
      name: v.wallet_name!,
      currency: v.currency!,
      singularUnitName: v.singular_unit_name!,
      pluralUnitName: v.plural_unit_name!,
      timezone: v.timezone!,
    });
    return present(w);
  } catch (err) {
    if (isDuplicateKeyError(err)) throw adminInvalid('"wallet_id" already exists in this application');
    throw err;
  }
}

export async function listWallets(deps: Deps, applicationId: string) {
  await requireApplication(deps, applicationId);
  return { wallets: (await deps.repos.wallets.listByApplication(applicationId)).map(present) };
}

/** A customer's balance and ledger in one wallet (points in units, oldest first). */
export async function readLedger(deps: Deps, applicationId: string, customerIdOrSource: string, walletId: string) {
  await requireApplication(deps, applicationId);
  const customer = await deps.repos.customers.resolve(applicationId, customerIdOrSource);
  if (!customer) throw adminNotFound('customer');
  const wallet = await deps.repos.wallets.findByWalletId(applicationId, walletId);
  if (!wallet) throw adminNotFound('wallet');
  const entries = await deps.repos.walletTransactions.listForCustomer(applicationId, customer.id, wallet.id);
  const balance = await deps.repos.walletBalances.getOrCreate(applicationId, customer.id, wallet.id);
  return {
    balance: fromHundredths(balance.points),
    entries: entries.map((e) => ({
      txn_id: e.txnId,
      type: e.type,
      points: fromHundredths(e.points),
      before: e.before === null ? null : fromHundredths(e.before),
      after: e.after === null ? null : fromHundredths(e.after),
      description: e.description,
      state: e.state,
      origin: e.origin,
      created_at: e.createdAt,
    })),
  };
}
