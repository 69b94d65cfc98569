import { DEFAULT_STACKING, type Campaign } from './types.js';

/** What a campaign is when the admin leaves a field out: no rules, no limits, for everyone. */
export const CAMPAIGN_DEFAULTS = {
  description: '',
  termsAndConditions: [] as string[],
  bulkCodeUsageLimit: 1,
  assignment: 'all_users',
  assignedCustomerIds: [] as string[],
  status: 'active',
  validUntil: null,
  schedule: null,
  limits: {},
  cartConditions: [],
  itemSelector: null,
  selectedItemsValidations: [],
  productValidations: [],
  excludedItems: null,
  metadataKeys: [],
  stacking: DEFAULT_STACKING,
  trigger: 'code',
} satisfies Partial<Campaign>;
