/** The member API of the TRP bridge (SPEC §16): mint, list and revoke travel addresses. */
import { orgOf } from '../http/auth.js';
import { optionalBody } from '../http/problem.js';
import { type HubApp, problems } from '../http/types.js';
import type { TravelAddresses } from './addresses.js';
import {
  MintRequest,
  TravelAddress,
  TravelAddressList,
  TravelAddressParams,
  TravelAddressQuery,
} from './schemas.js';

export function travelAddressRoutes(app: HubApp, addresses: TravelAddresses) {
  const tags = ['trp'];
  app.post(
    '/v1/travel-addresses',
    {
      attachValidation: true,
      schema: {
        tags,
        summary: 'Mint a travel address for a customer: TRP VASPs send inquiries to it',
        description:
          'Needs the organization’s publicKey and travelEndpoint: an inquiry becomes a TRP transaction with ' +
          'the member as beneficiary, announced by `received` with the personal data encrypted for the key. ' +
          '404 when the hub has no TRP bridge.',
        body: MintRequest,
        response: { 201: TravelAddress, ...problems(400, 403, 404, 415) },
      },
    },
    async (request, reply) => {
      reply.code(201);
      return addresses.mint(orgOf(request), optionalBody(request) ?? {});
    },
  );

  app.get(
    '/v1/travel-addresses',
    {
      schema: {
        tags,
        summary: 'The organization’s travel addresses, newest first (revoked and expired ones too)',
        querystring: TravelAddressQuery,
        response: { 200: TravelAddressList, ...problems(400, 404) },
      },
    },
    (request) => addresses.list(orgOf(request), request.query),
  );

  app.delete(
    '/v1/travel-addresses/:id',
    {
      schema: {
        tags,
        summary: 'Revoke a travel address: later inquiries to it get 404 (transfers already made go on)',
        params: TravelAddressParams,
        response: { 200: TravelAddress, ...problems(400, 404) },
      },
    },
    (request) => addresses.revoke(orgOf(request), request.params.id),
  );
}
