/** The decline categories of the interface document; SPEC §6 accepts exactly these. */
export const DECLINE_CATEGORIES = [
  'COMPLIANCE_CHECK_FAILED',
  'INSUFFICIENT_KYC',
  'SANCTIONS_MATCH',
  'POLICY_VIOLATION',
  'CAPACITY_EXCEEDED',
  'TECHNICAL_ISSUE',
  'USER_REQUEST',
  'REGULATORY_RESTRICTION',
] as const;
export type DeclineCategory = (typeof DECLINE_CATEGORIES)[number];
