/** Initiation requests shaped like the interface document's samples, with unique names. */
import { randomBytes } from 'node:crypto';
import { mainSample, notifySample } from '../unit/ivms101-fixtures.js';

export type Json = Record<string, any>;

/** A name no other test uses, so a search for it finds only this transaction's data. */
export const uniqueName = () => `Zyx${randomBytes(6).toString('hex')}`;

function piiWith(name: string, sample: Json): Json {
  sample.originator.originatorPersons[0].naturalPerson.name[0].nameIdentifier[0].primaryIdentifier = name;
  return sample;
}

export function mainRequest(beneficiaryDid: string, name = uniqueName()): Json {
  return {
    transactionAsset: 'ETH-USDC',
    transactionAssetDecimals: 6,
    transactionAmount: '1250.500001',
    protocol: 'MAIN',
    beneficiaryVASPdid: beneficiaryDid,
    transactionBlockchainInfo: {
      origin: '0x1111111111111111111111111111111111111111',
      destination: '0x2222222222222222222222222222222222222222',
    },
    pii: piiWith(name, mainSample()),
  };
}

export function basicRequest(beneficiaryDid: string, name = uniqueName()): Json {
  return {
    ...mainRequest(beneficiaryDid, name),
    protocol: 'BASIC',
    transactionAsset: 'BTC-BTC',
    transactionAssetDecimals: 8,
    transactionAmount: '0.5',
  };
}

export function notifyRequest(beneficiaryVaspId: string, name = uniqueName()): Json {
  return {
    transactionAsset: 'TRX-USDT',
    transactionAssetDecimals: 6,
    transactionAmount: '99.99',
    protocol: 'NOTIFY',
    beneficiaryVASPid: beneficiaryVaspId,
    notificationEmail: 'compliance@unlisted-exchange.example',
    transactionBlockchainInfo: { destination: 'TXYZ1234567890abcdefghijkLMNOPQRS' },
    pii: piiWith(name, notifySample()),
  };
}

/**
 * `pii` as a member with IVMS101 version 2020 receives it (SPEC §18): as sent in the interface
 * document's shape, with the VASPs the hub fills in from the directory (each organization by its
 * name, as a legal person).
 */
export function asDelivered(pii: Json, originator?: { name: string }, beneficiary?: { name: string }): Json {
  const vasp = (name: string) => ({
    legalPerson: {
      name: [{ nameIdentifier: [{ legalPersonName: name, legalPersonNameIdentifierType: 'LEGL' }] }],
    },
  });
  return {
    ...pii,
    ...(originator ? { originatingVASP: { originatingVASP: vasp(originator.name) } } : {}),
    ...(beneficiary ? { beneficiaryVASP: { beneficiaryVASP: vasp(beneficiary.name) } } : {}),
  };
}
