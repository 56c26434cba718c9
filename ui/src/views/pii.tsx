/**
 * IVMS101 persons made readable: names, addresses, identifiers, birth, residence, accounts.
 * Accepts both spellings the hub accepts (postCode/postcode, nationalIdentificationType/
 * nationalIdentifierType, customerIdentification/customerNumber, name as array or object).
 */
import { Fact } from '../components/ui.js';
import { countryName } from '../format.js';

type Json = Record<string, unknown>;

const ADDRESS_TYPES: Record<string, string> = { HOME: 'Home', BIZZ: 'Business', GEOG: 'Geographic' };
const NAME_TYPES: Record<string, string> = {
  LEGL: 'legal name',
  ALIA: 'alias',
  BIRT: 'name at birth',
  MAID: 'maiden name',
  MISC: 'other name',
  SHRT: 'short name',
  TRAD: 'trading name',
};
const ID_TYPES: Record<string, string> = {
  ARNU: 'Alien registration number',
  CCPT: 'Passport',
  RAID: 'Registration authority identifier',
  DRLC: 'Driver’s licence',
  FIIN: 'Foreign investment identity number',
  TXID: 'Tax identification number',
  SOCS: 'Social security number',
  IDCD: 'Identity card',
  LEIX: 'Legal Entity Identifier (LEI)',
  MISC: 'Other identifier',
};

/** The kinds of name identifier a name holds, and how a kind other than the plain one is noted. */
const NAME_KINDS = {
  nameIdentifier: '',
  localNameIdentifier: ', local',
  phoneticNameIdentifier: ', phonetic',
} as const;
type NameKind = keyof typeof NAME_KINDS;

const obj = (v: unknown): Json => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {});
const list = (v: unknown): Json[] =>
  Array.isArray(v) ? v.map(obj) : v && typeof v === 'object' ? [obj(v)] : [];
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

export function PiiView({ pii }: { pii: Json }) {
  const originator = obj(pii.originator);
  const beneficiary = obj(pii.beneficiary);
  return (
    <div class="pii">
      <PartySection
        title="Originator"
        persons={list(originator.originatorPersons)}
        accounts={originator.accountNumber}
      />
      <PartySection
        title="Beneficiary"
        persons={list(beneficiary.beneficiaryPersons)}
        accounts={beneficiary.accountNumber}
      />
    </div>
  );
}

function PartySection({ title, persons, accounts }: { title: string; persons: Json[]; accounts: unknown }) {
  const numbers = Array.isArray(accounts) ? accounts.filter((a): a is string => typeof a === 'string') : [];
  return (
    <section class="party" aria-label={`${title} personal data`}>
      <h3>{title}</h3>
      {persons.length === 0 ? <p class="muted">No persons given.</p> : null}
      {persons.map((p, i) => {
        const natural = p.naturalPerson ? obj(p.naturalPerson) : undefined;
        return natural ? (
          <NaturalPerson key={i} p={natural} />
        ) : (
          <LegalPerson key={i} p={obj(p.legalPerson)} />
        );
      })}
      {numbers.length > 0 ? (
        <dl class="facts">
          <Fact label={numbers.length === 1 ? 'Account' : 'Accounts'}>
            {numbers.map((n) => (
              <div key={n} class="mono break">
                {n}
              </div>
            ))}
          </Fact>
        </dl>
      ) : null}
    </section>
  );
}

function NaturalPerson({ p }: { p: Json }) {
  const birth = obj(p.dateAndPlaceOfBirth);
  const names = list(p.name);
  return (
    <article class="person">
      <h4>
        {primaryNaturalName(names) ?? 'Unnamed person'} <span class="muted small">natural person</span>
      </h4>
      <dl class="facts">
        <Fact label="Names">
          <NameList names={names} />
        </Fact>
        <Addresses value={p.geographicAddress} />
        <NationalId value={p.nationalIdentification} />
        {str(p.customerIdentification) ? (
          <Fact label="Customer number">{str(p.customerIdentification)}</Fact>
        ) : null}
        {str(birth.dateOfBirth) ? (
          <Fact label="Born">
            {str(birth.dateOfBirth)}
            {str(birth.placeOfBirth) ? ` in ${str(birth.placeOfBirth)}` : ''}
          </Fact>
        ) : null}
        {str(p.countryOfResidence) ? (
          <Fact label="Country of residence">{countryName(str(p.countryOfResidence))}</Fact>
        ) : null}
      </dl>
    </article>
  );
}

function LegalPerson({ p }: { p: Json }) {
  const names = list(p.name);
  const first = list(names[0]?.nameIdentifier)[0];
  const customer = str(p.customerIdentification) ?? str(p.customerNumber);
  return (
    <article class="person">
      <h4>
        {str(first?.legalPersonName) ?? 'Unnamed organization'} <span class="muted small">legal person</span>
      </h4>
      <dl class="facts">
        <Fact label="Names">
          <ul class="plain">
            {nameIdentifiers(names).map(({ kind, id }) => (
              <li key={`${kind}${str(id.legalPersonName)}`}>
                {str(id.legalPersonName)}{' '}
                <span class="muted small">({nameType(str(id.legalPersonNameIdentifierType), kind)})</span>
              </li>
            ))}
          </ul>
        </Fact>
        <Addresses value={p.geographicAddress} />
        <NationalId value={p.nationalIdentification} />
        {customer ? <Fact label="Customer number">{customer}</Fact> : null}
        {str(p.countryOfRegistration) ? (
          <Fact label="Country of registration">{countryName(str(p.countryOfRegistration))}</Fact>
        ) : null}
      </dl>
    </article>
  );
}

function naturalName(id: Json): string {
  const given = str(id.secondaryIdentifier);
  const family = str(id.primaryIdentifier) ?? '';
  return given ? `${given} ${family}` : family;
}

function primaryNaturalName(names: Json[]): string | undefined {
  const ids = names.flatMap((n) => list(n.nameIdentifier));
  const legal = ids.find((id) => (str(id.nameIdentifierType) ?? 'LEGL') === 'LEGL') ?? ids[0];
  return legal ? naturalName(legal) : undefined;
}

/** Every identifier of every name, with its kind, in the order given. */
function nameIdentifiers(names: Json[]): { kind: NameKind; id: Json }[] {
  const kinds = Object.keys(NAME_KINDS) as NameKind[];
  return names.flatMap((n) => kinds.flatMap((kind) => list(n[kind]).map((id) => ({ kind, id }))));
}

/** "legal name", "alias, local", …: the name's type code (LEGL when absent) and its kind. */
function nameType(code: string | undefined, kind: NameKind): string {
  return `${NAME_TYPES[code ?? 'LEGL'] ?? 'name'}${NAME_KINDS[kind]}`;
}

function NameList({ names }: { names: Json[] }) {
  return (
    <ul class="plain">
      {nameIdentifiers(names).map(({ kind, id }) => (
        <li key={`${kind}${naturalName(id)}`}>
          {naturalName(id)}{' '}
          <span class="muted small">
            (family name: {str(id.primaryIdentifier)}; {nameType(str(id.nameIdentifierType), kind)})
          </span>
        </li>
      ))}
    </ul>
  );
}

function Addresses({ value }: { value: unknown }) {
  const addresses = list(value);
  if (addresses.length === 0) return null;
  return (
    <Fact label={addresses.length === 1 ? 'Address' : 'Addresses'}>
      {addresses.map((a, i) => (
        <address key={i}>
          <span class="muted small">{ADDRESS_TYPES[str(a.addressType) ?? ''] ?? str(a.addressType)}</span>
          {addressLines(a).map((line) => (
            <div key={line}>{line}</div>
          ))}
        </address>
      ))}
    </Fact>
  );
}

function addressLines(a: Json): string[] {
  const join = (...parts: unknown[]) => parts.map(str).filter(Boolean).join(' ');
  const lines = [
    join(a.department),
    join(a.subDepartment),
    join(a.buildingName),
    join(a.streetName, a.buildingNumber),
    join(a.floor ? `Floor ${str(a.floor)}` : undefined, a.room ? `Room ${str(a.room)}` : undefined),
    join(a.postBox ? `PO Box ${str(a.postBox)}` : undefined),
    ...(Array.isArray(a.addressLine) ? a.addressLine.map((l) => join(l)) : []),
    join(a.postCode ?? a.postcode, a.townName),
    join(a.townLocationName, a.districtName),
    join(a.countrySubDivision),
    countryName(str(a.country)),
  ];
  return lines.filter((l) => l !== '' && l !== '—');
}

function NationalId({ value }: { value: unknown }) {
  const id = obj(value);
  const number = str(id.nationalIdentifier);
  if (!number) return null;
  const type = str(id.nationalIdentificationType) ?? str(id.nationalIdentifierType) ?? 'MISC';
  return (
    <Fact label={ID_TYPES[type] ?? 'National identifier'}>
      <span class="mono">{number}</span>{' '}
      <span class="muted small">
        ({type}
        {str(id.countryOfIssue) ? `, issued in ${countryName(str(id.countryOfIssue))}` : ''}
        {str(id.registrationAuthority) ? `, authority ${str(id.registrationAuthority)}` : ''})
      </span>
    </Fact>
  );
}
