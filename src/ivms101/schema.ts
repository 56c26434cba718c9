// The `pii` schema for the OpenAPI document: the validator's own description of what it accepts
// (PII_SCHEMA, built from the same shapes that check requests), with an example that a unit test
// runs through the validator.

import { PII_SCHEMA } from './validate.js';

const PII_EXAMPLE = {
  originator: {
    originatorPersons: [
      {
        naturalPerson: {
          name: [{ nameIdentifier: [{ primaryIdentifier: 'Muster', secondaryIdentifier: 'Erika' }] }],
          geographicAddress: [
            {
              addressType: 'HOME',
              streetName: 'Heidestrasse',
              buildingNumber: '17',
              postCode: '51147',
              townName: 'Köln',
              country: 'DE',
            },
          ],
          nationalIdentification: {
            nationalIdentifier: 'C01X00T47',
            nationalIdentificationType: 'IDCD',
            countryOfIssue: 'DE',
          },
        },
      },
    ],
    accountNumber: ['0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'],
  },
  beneficiary: {
    beneficiaryPersons: [
      {
        naturalPerson: {
          name: [{ nameIdentifier: [{ primaryIdentifier: 'Doe', secondaryIdentifier: 'John' }] }],
        },
      },
    ],
    accountNumber: ['0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359'],
  },
};

export const PiiSchema = { ...PII_SCHEMA, examples: [PII_EXAMPLE] };
