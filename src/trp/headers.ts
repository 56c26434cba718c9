// TRP request headers: what we send, and the checks of what peers send. Pure.

import { UUID } from '../http/cursor.js';
import { TRP_CONTENT_TYPE, TRP_HEADER, TRP_VERSION } from './messages.js';

const SEMVER = /^(0|[1-9][0-9]{0,5})\.(0|[1-9][0-9]{0,5})\.(0|[1-9][0-9]{0,5})$/;

/** `[major, minor, patch]` of an `api-version` value, or null when it is not `X.Y.Z`. */
export function parseTrpVersion(value: string | undefined): [number, number, number] | null {
  const match = value === undefined ? null : SEMVER.exec(value.trim());
  return match ? [Number(match[1]), Number(match[2]), Number(match[3])] : null;
}

/**
 * Whether we accept an inbound `api-version`: any 3.x.y. The messages are the same from 3.0.0
 * to 3.2.1 (3.1.0 changed travel addresses, 3.2.0 added DTI, 3.2.1 the /identity fields), and
 * TRISA-based peers send 3.1.0. 2.x predates mTLS, which we require.
 */
export function acceptsTrpVersion(value: string | undefined): boolean {
  return parseTrpVersion(value)?.[0] === 3;
}

/** A request-identifier is a UUID (TRP asks for v4; Envoy parses any version, so do we). */
export function isRequestIdentifier(value: string | undefined): boolean {
  return value !== undefined && UUID.test(value);
}

/** The names in an `api-extensions` header (comma-separated), trimmed, without empty entries. */
export function parseApiExtensions(value: string | undefined): string[] {
  if (value === undefined) return [];
  return value
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
}

/** Whether a content-type is JSON; an absent one is taken as JSON, as TRISA and Envoy do. */
export function isJsonContentType(value: string | undefined): boolean {
  if (value === undefined || value.trim() === '') return true;
  return value.split(';')[0]?.trim().toLowerCase() === 'application/json';
}

/** The headers of a TRP POST we send. `apiVersion` is per peer (Envoy refuses 3.2.x). */
export function trpRequestHeaders(input: {
  requestIdentifier: string;
  apiVersion?: string;
  extensions?: readonly string[];
}): Record<string, string> {
  const headers: Record<string, string> = {
    [TRP_HEADER.apiVersion]: input.apiVersion ?? TRP_VERSION,
    [TRP_HEADER.requestIdentifier]: input.requestIdentifier,
    [TRP_HEADER.contentType]: TRP_CONTENT_TYPE,
  };
  if (input.extensions && input.extensions.length > 0) {
    headers[TRP_HEADER.apiExtensions] = input.extensions.join(', ');
  }
  return headers;
}
