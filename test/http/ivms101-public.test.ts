// Real networks' public IVMS101 test data through the HTTP API (SPEC §18), on PGlite and
// PostgreSQL. Each file either initiates and reaches a 2020 and a 2023 member with every name,
// identifier and account number, or is refused for exactly the substance errors it really has;
// with those mended, it goes through too.
//
// The files are other projects' (test/fixtures/ivms101/README.md says which, from where, under
// which licence). TRISA's and Global Travel Rule's (MIT) are kept in test/fixtures/ivms101 with
// their notices and always run. CODE's examples state no licence and are not redistributed: they
// are read from TEST_IVMS101_PUBLIC_DIR, else from the steering repository's
// shared/fixtures/ivms101 beside this checkout, and skipped with a notice when absent.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, it } from 'node:test';
import { eachBackend } from '../harness.js';
import { closeReceivers, deliverConfirmed, identifying, members } from '../support/dialects.js';
import { type Json, mainRequest } from '../support/requests.js';

after(closeReceivers);

const ROOT = new URL('../..', import.meta.url).pathname;
const KEPT = join(ROOT, 'test', 'fixtures', 'ivms101');
const OUTSIDE = process.env.TEST_IVMS101_PUBLIC_DIR ?? join(ROOT, '..', 'shared', 'fixtures', 'ivms101');
/** Where a file is: CODE's outside the repository (no licence to redistribute), the rest in it. */
const dirOf = (file: string) => (file.startsWith('codevasp/') ? OUTSIDE : KEPT);
const CODE_MISSING = !existsSync(join(OUTSIDE, 'codevasp', 'complete-example.json'));

const VALID_LEI = '529900T8BM49AURSDO55';
const LEI_CHECK = 'must be a valid ISO 17442 LEI when the type is LEIX';

interface PublicFile {
  /** `<source>/<file>` below DIR. */
  file: string;
  /** The IVMS101 message in the file (an inquiry carries it under `IVMS101`). */
  take?: (json: Json) => Json;
  /** The substance errors the file really has, at the paths as it spells them; none when valid. */
  problems?: [string, string][];
  /** The file with those errors mended. */
  mend?: (json: Json) => void;
}

const FILES: PublicFile[] = [
  { file: 'trisa/identity_payload.json' },
  { file: 'trisa/inquiry.json', take: (j) => j.IVMS101 },
  {
    file: 'trisa/identity_payload.pb.json',
    problems: [
      // a country written out instead of its ISO 3166-1 code
      [
        '/pii/beneficiary/beneficiary_persons/0/natural_person/geographic_addresses/0/country',
        'must be an ISO 3166-1 alpha-2 country code in upper case, or XX',
      ],
      // C9: an LEI needs no issuing country and no registration authority; C11: check digits that fail
      [
        '/pii/originating_vasp/originating_vasp/legal_person/national_identification/country_of_issue',
        'must be absent for a legal person',
      ],
      [
        '/pii/originating_vasp/originating_vasp/legal_person/national_identification/registration_authority',
        'must be absent when the type is LEIX',
      ],
      [
        '/pii/originating_vasp/originating_vasp/legal_person/national_identification/national_identifier',
        LEI_CHECK,
      ],
      [
        '/pii/beneficiary_vasp/beneficiary_vasp/legal_person/national_identification/country_of_issue',
        'must be absent for a legal person',
      ],
      [
        '/pii/beneficiary_vasp/beneficiary_vasp/legal_person/national_identification/registration_authority',
        'must be absent when the type is LEIX',
      ],
      [
        '/pii/beneficiary_vasp/beneficiary_vasp/legal_person/national_identification/national_identifier',
        LEI_CHECK,
      ],
    ],
    mend: (j) => {
      j.beneficiary.beneficiary_persons[0].natural_person.geographic_addresses[0].country = 'GB';
      for (const key of ['originating_vasp', 'beneficiary_vasp']) {
        const id = j[key][key].legal_person.national_identification;
        delete id.country_of_issue;
        delete id.registration_authority;
        id.national_identifier = VALID_LEI;
      }
    },
  },
  { file: 'codevasp/complete-example.json' },
  {
    file: 'codevasp/complete-example-legal-person.json',
    problems: [
      [
        '/pii/Originator/originatorPersons/0/legalPerson/nationalIdentification/nationalIdentifier',
        LEI_CHECK,
      ],
      // C1: the second originator, a natural person, is known by name only
      [
        '/pii/Originator/originatorPersons/1/naturalPerson',
        'an originator needs one of geographicAddress, customerIdentification, nationalIdentification, dateAndPlaceOfBirth',
      ],
      [
        '/pii/Beneficiary/beneficiaryPersons/0/legalPerson/nationalIdentification/nationalIdentifier',
        LEI_CHECK,
      ],
    ],
    mend: (j) => {
      j.Originator.originatorPersons[0].legalPerson.nationalIdentification.nationalIdentifier = VALID_LEI;
      j.Originator.originatorPersons[1].naturalPerson.customerIdentification = 'C-1';
      j.Beneficiary.beneficiaryPersons[0].legalPerson.nationalIdentification.nationalIdentifier = VALID_LEI;
    },
  },
  {
    file: 'gtr/complete-example.json',
    problems: [
      [
        '/pii/beneficiary/beneficiaryPersons/0/legalPerson/nationalIdentification/nationalIdentifier',
        LEI_CHECK,
      ],
      // Max16Text: a 17-digit building number
      [
        '/pii/originatingVASP/legalPerson/geographicAddress/0/buildingNumber',
        'must be at most 16 characters',
      ],
      ['/pii/beneficiaryVASP/legalPerson/nationalIdentification/nationalIdentifier', LEI_CHECK],
    ],
    mend: (j) => {
      j.beneficiary.beneficiaryPersons[0].legalPerson.nationalIdentification.nationalIdentifier = VALID_LEI;
      j.originatingVASP.legalPerson.geographicAddress[0].buildingNumber = '1213131414814914';
      j.beneficiaryVASP.legalPerson.nationalIdentification.nationalIdentifier = VALID_LEI;
    },
  },
  {
    file: 'gtr/malformed-full-example.json',
    problems: [
      // C10: not a GLEIF registration authority code
      [
        '/pii/originator/originatorPersons/0/naturalPerson/nationalIdentification/registrationAuthority',
        'must be a GLEIF registration authority code (RA followed by 6 digits)',
      ],
      [
        '/pii/beneficiary/beneficiaryPersons/0/legalPerson/nationalIdentification/nationalIdentifier',
        LEI_CHECK,
      ],
      ['/pii/originatingVASP/legalPerson/nationalIdentification/nationalIdentifier', LEI_CHECK],
      ['/pii/beneficiaryVASP/legalPerson/nationalIdentification/nationalIdentifier', LEI_CHECK],
    ],
  },
  {
    file: 'gtr/originator-example.json',
    problems: [
      [
        '/pii/originator/originatorPersons/0/naturalPerson/nationalIdentification/registrationAuthority',
        'must be a GLEIF registration authority code (RA followed by 6 digits)',
      ],
      // a fragment: the originator's half of a message
      ['/pii/beneficiary', 'is required'],
      ['/pii/originatingVASP/legalPerson/nationalIdentification/nationalIdentifier', LEI_CHECK],
    ],
  },
  {
    file: 'gtr/beneficiary-example.json',
    problems: [
      ['/pii/originator', 'is required'],
      ['/pii/beneficiaryVASP/legalPerson/nationalIdentification/nationalIdentifier', LEI_CHECK],
    ],
  },
];

function load(f: PublicFile): Json {
  const json = JSON.parse(readFileSync(join(dirOf(f.file), f.file), 'utf8')) as Json;
  return f.take ? f.take(json) : json;
}

/** The files present: CODE's only when placed outside the repository. */
const PRESENT = FILES.filter((f) => !(CODE_MISSING && f.file.startsWith('codevasp/')));

if (CODE_MISSING) {
  process.stderr.write(
    `\n!! IVMS101 public data: CODE's examples are not at ${join(OUTSIDE, 'codevasp')}; ` +
      'TRISA and Global Travel Rule run without them (see test/fixtures/ivms101/README.md)\n',
  );
}

eachBackend('IVMS101: real networks’ public test data', (hub) => {
  it('reads each file as valid, or refuses exactly the substance errors it has', async () => {
    assert.ok(PRESENT.length >= 7, 'TRISA and Global Travel Rule files are in the repository');
    const m = await members(hub());
    for (const f of PRESENT) {
      const res = await hub().request('POST', '/v1/ivms101/check', {
        key: m.originator.apiKey,
        body: { payload: load(f) },
      });
      const found = (res.body.errors as Json[]).map((e) => [e.path.replace(/^\/payload/, '/pii'), e.message]);
      assert.deepEqual(found, f.problems ?? [], f.file);
      if (f.problems === undefined) continue;
      const refused = await hub().request('POST', '/v1/transactions/initiate', {
        key: m.originator.apiKey,
        body: { ...mainRequest(m.v2020.vaspDid), pii: load(f) },
      });
      assert.equal(refused.status, 400, f.file);
      assert.deepEqual(
        (refused.body.errors as Json[]).map((e) => [e.path, e.message]),
        f.problems,
        `${f.file}: initiate names the same problems`,
      );
    }
  });

  it('delivers every name, identifier and account number of each file to a 2020 and a 2023 member', async () => {
    const m = await members(hub());
    for (const f of PRESENT) {
      if (f.problems !== undefined && f.mend === undefined) continue; // fragments and malformed on purpose
      const pii = load(f);
      f.mend?.(pii);
      for (const member of [m.v2020, m.v2023]) {
        const data = JSON.stringify(await deliverConfirmed(hub(), m, member, pii, f.file));
        for (const s of identifying(pii)) {
          // Country names and codes are codes; everything else a person or VASP is known by arrives.
          assert.ok(data.includes(JSON.stringify(s)) || /^[a-z]{2}$/i.test(s), `${f.file}: ${s} lost`);
        }
      }
    }
  });
});
