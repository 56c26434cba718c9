/**
 * Every column that holds data sealed under the master key (SPEC §9, §14), with how each row's
 * associated data (the context its blob is bound to) is made. One table, read by `rekey`, by the
 * migration that gave old blobs key ids, and by the tests that prove nothing is left under an old
 * key. A new sealed column belongs here, or rotation leaves it behind.
 */
import { pickupContext } from '../claims/service.js';
import { secretContext } from '../directory/keys.js';
import { context as answerContext } from '../idempotency/index.js';
import { oidcSecretContext } from '../people/oidc-store.js';
import { totpContext } from '../people/secrets.js';
import { noteContext } from '../reviews/service.js';
import { context as reasonContext } from '../transactions/reasons.js';
import { hubKeyContext } from './link-key.js';

export interface SealedColumn {
  table: string;
  column: string;
  /** The primary key's columns, which keyset pagination walks. */
  key: readonly string[];
  /** The columns the row's context is made of, and how (values as text, in this order). */
  fields: readonly string[];
  context: (fields: readonly string[]) => string;
}

export const SEALED_COLUMNS: readonly SealedColumn[] = [
  { table: 'transactions', column: 'sealed_pii', key: ['ref'], fields: ['ref'], context: ([ref]) => ref! },
  {
    table: 'transactions',
    column: 'sealed_reason',
    key: ['ref'],
    fields: ['ref'],
    context: ([ref]) => reasonContext(ref!),
  },
  {
    table: 'transaction_history',
    column: 'sealed_reason',
    key: ['id'],
    fields: ['transaction_ref'],
    context: ([ref]) => reasonContext(ref!),
  },
  {
    table: 'webhook_secrets',
    column: 'sealed_secret',
    key: ['id'],
    fields: ['organization_id'],
    context: ([org]) => secretContext(org!),
  },
  {
    table: 'credential_pickups',
    column: 'sealed_credentials',
    key: ['id'],
    fields: ['id'],
    context: ([id]) => pickupContext(id!),
  },
  {
    table: 'idempotency_keys',
    column: 'sealed_response',
    key: ['organization_id', 'idempotency_key'],
    fields: ['organization_id', 'idempotency_key'],
    context: ([org, key]) => answerContext(org!, key!),
  },
  {
    table: 'hub_keys',
    column: 'sealed_key',
    key: ['name'],
    fields: ['name'],
    context: ([n]) => hubKeyContext(n!),
  },
  {
    table: 'review_notes',
    column: 'sealed_text',
    key: ['id'],
    fields: ['transaction_ref', 'organization_id'],
    context: ([ref, org]) => noteContext(ref!, org!),
  },
  { table: 'users', column: 'sealed_totp', key: ['id'], fields: ['id'], context: ([id]) => totpContext(id!) },
  {
    table: 'oidc_configs',
    column: 'sealed_client_secret',
    key: ['organization_id'],
    fields: ['organization_id'],
    context: ([org]) => oidcSecretContext(org!),
  },
];
