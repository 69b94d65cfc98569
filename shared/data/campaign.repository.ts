import { Types } from 'mongoose';
import {
  DEFAULT_STACKING,
  type Campaign,
  type Condition,
  type DiscountBase,
  type ItemSelector,
  type MetadataKey,
  type Scalar,
  type SelectorOperator,
} from '../domain/types.js';
import type { CampaignDoc } from './campaign.schema.js';
import type { Models } from './db.js';
import { applicationScopedAdmin } from './admin-queries.js';

/** Stored document → domain `Campaign` (plain data for the engine). */
export function toCampaign(d: CampaignDoc): Campaign {
  const conditions = (cs: CampaignDoc['cartConditions']): Condition[] =>
    (cs ?? []).map((c) => ({ field: c.field, operator: c.operator as Condition['operator'], value: c.value as Scalar | Scalar[] }));
  const selector = (s: CampaignDoc['itemSelector']): ItemSelector | null =>
    s
      ? {
          match: s.match,
          properties: s.properties.map((p) => ({
            property: p.property,
            ...(p.operator ? { operator: p.operator as SelectorOperator } : {}),
            values: p.values as Scalar[],
          })),
        }
      : null;
  return {
    id: String(d._id),
    applicationId: String(d.application),
    name: d.name,
    description: d.description ?? '',
    termsAndConditions: d.termsAndConditions ?? [],
    codeType: d.codeType,
    ...(d.code !== undefined && d.code !== null ? { code: d.code } : {}),
    bulkCodeUsageLimit: d.bulkCodeUsageLimit ?? 1,
    assignment: d.assignment,
    assignedCustomerIds: (d.assignedCustomers ?? []).map(String),
    status: d.status,
    archivedAt: d.archivedAt ?? null,
    validFrom: d.validFrom,
    validUntil: d.validUntil ?? null,
    schedule: d.schedule ?? null,
    limits: { ...(d.limits ?? {}) },
    discount: {
      kind: d.discount.kind,
      type: d.discount.type,
      value: d.discount.value,
      maxCents: d.discount.maxCents ?? null,
      walletId: d.discount.walletId ?? null,
      cashbackPending: d.discount.cashbackPending ?? null,
      ...(d.discount.buyXGetY ? { buyXGetY: d.discount.buyXGetY } : {}),
      ...(d.discount.gift ? { gift: d.discount.gift } : {}),
      ...(d.discount.tiered ? { tiered: d.discount.tiered } : {}),
      ...(d.discount.bundle ? { bundle: d.discount.bundle } : {}),
    },
    budget: d.budget ?? null,
    earningMultiplier: d.earningMultiplier ?? null,
    tierRequirement: d.tierRequirement ?? null,
    discountCalculatedOn: d.discountCalculatedOn as DiscountBase,
    cartConditions: conditions(d.cartConditions),
    itemSelector: selector(d.itemSelector),
    selectedItemsValidations: conditions(d.selectedItemsValidations),
    productValidations: conditions(d.productValidations),
    excludedItems: selector(d.excludedItems),
    metadataKeys: (d.metadataKeys ?? []).map((k): MetadataKey => ({ key: k.key, type: k.type, scope: k.scope ?? 'both' })),
    stacking: d.stacking ? { ...DEFAULT_STACKING, ...d.stacking } : DEFAULT_STACKING,
    trigger: d.trigger === 'automatic' ? 'automatic' : 'code',
    updatedAt: d.updatedAt,
  };
}

/** Domain-shaped input for create/update (ids as strings). */
export type CampaignInput = Omit<Campaign, 'id' | 'applicationId' | 'updatedAt'>;

const toDoc = (applicationId: string, c: Partial<CampaignInput>) => {
  const { assignedCustomerIds, ...rest } = c;
  return {
    ...rest,
    application: new Types.ObjectId(applicationId),
    ...(assignedCustomerIds ? { assignedCustomers: assignedCustomerIds.map((id) => new Types.ObjectId(id)) } : {}),
  };
};

export function campaignRepository({ Campaign: CampaignModel }: Models) {
  return {
    async create(applicationId: string, input: CampaignInput) {
      const doc = await CampaignModel.create(toDoc(applicationId, input));
      return toCampaign(doc.toObject());
    },
    async update(applicationId: string, id: string, input: Partial<CampaignInput>) {
      const d = await CampaignModel.findOneAndUpdate(
        { _id: id, application: applicationId },
        { $set: toDoc(applicationId, input) },
        { returnDocument: 'after' },
      ).lean<CampaignDoc>();
      return d ? toCampaign(d) : null;
    },
    async findById(applicationId: string, id: string) {
      if (!Types.ObjectId.isValid(id)) return null;
      const d = await CampaignModel.findOne({ _id: id, application: applicationId }).lean<CampaignDoc>();
      return d ? toCampaign(d) : null;
    },
    /** The campaigns of an application among `ids` (archived ones included); unknown ids are left out. */
    async findByIds(applicationId: string, ids: string[]) {
      const valid = ids.filter((id) => Types.ObjectId.isValid(id));
      if (valid.length === 0) return [];
      const ds = await CampaignModel.find({ application: applicationId, _id: { $in: valid } }).lean<CampaignDoc[]>();
      return ds.map(toCampaign);
    },
    /**
     * Every campaign of an application, archived ones included (the cache holds them all: a
     * redemption of an archived campaign can still be reverted; bulk codes are elsewhere).
     */
    async listByApplication(applicationId: string) {
      const ds = await CampaignModel.find({ application: applicationId }).sort({ _id: 1 }).lean<CampaignDoc[]>();
      return ds.map(toCampaign);
    },
    ...applicationScopedAdmin(CampaignModel, toCampaign),
    /** Campaigns, archived or not, whose cashback goes to this `wallet_id`. */
    async findByCashbackWallet(applicationId: string, walletId: string) {
      const ds = await CampaignModel.find({ application: applicationId, 'discount.walletId': walletId }).lean<CampaignDoc[]>();
      return ds.map(toCampaign);
    },
    /** Campaigns, archived or not, assigned to this customer. */
    async findAssignedTo(applicationId: string, customerId: string) {
      const ds = await CampaignModel.find({ application: applicationId, assignedCustomers: new Types.ObjectId(customerId) }).lean<
        CampaignDoc[]
      >();
      return ds.map(toCampaign);
    },
  };
}
export type CampaignRepository = ReturnType<typeof campaignRepository>;
