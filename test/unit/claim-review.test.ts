import assert from 'node:assert/strict';
import { it } from 'node:test';
import { didDomain, emailDomain, reviewClaimAddress } from '../../src/claims/review.js';

it('finds the registrable domain of e-mail addresses and did:web DIDs', () => {
  const cases: [string, string | null][] = [
    ['did:web:vasp.example', 'vasp.example'],
    ['did:web:api.vasp.example', 'vasp.example'],
    ['did:web:vasp.example%3A8443:users:alice', 'vasp.example'],
    ['did:web:exchange.co.uk', 'exchange.co.uk'],
    ['did:web:alice.github.io', 'alice.github.io'],
    ['did:web:localhost%3A3000', 'localhost'],
    ['did:ethr:0xb9c5714089478a327f09197987f16f9e5d936e8a', null],
    ['did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK', null],
    ['did:web:bad%zz', null],
  ];
  for (const [did, want] of cases) assert.equal(didDomain(did), want, did);
  assert.equal(emailDomain('Ops@Mail.VASP.example'), 'vasp.example');
  assert.equal(emailDomain('x@b.co.uk'), 'b.co.uk');
});

it('says whose domain the claim address is in', () => {
  const originator = {
    organizationId: '4a1f6c1e-2f7b-4c55-9a43-9d3b1f0c2e11',
    name: 'Sender AG',
    vaspDid: 'did:web:sender.example',
    contactEmail: 'ops@sender-group.example',
  };
  const cases: {
    address: string;
    vaspDid: string;
    contactEmail: string;
    want: [boolean | null, boolean, boolean];
  }[] = [
    // The newcomer's own inbox, matching its DID and contact.
    {
      address: 'compliance@newcomer.example',
      vaspDid: 'did:web:newcomer.example',
      contactEmail: 'it@newcomer.example',
      want: [true, true, false],
    },
    // A squatter: the DID is someone else's, the contact the squatter's.
    {
      address: 'compliance@newcomer.example',
      vaspDid: 'did:web:big-bank.example',
      contactEmail: 'me@evil.example',
      want: [false, false, false],
    },
    // The originator sent the link to its own domain (or its contact's).
    {
      address: 'desk@sender.example',
      vaspDid: 'did:web:newcomer.example',
      contactEmail: 'it@newcomer.example',
      want: [false, false, true],
    },
    {
      address: 'desk@sender-group.example',
      vaspDid: 'did:web:newcomer.example',
      contactEmail: 'it@newcomer.example',
      want: [false, false, true],
    },
    // A DID without a domain: unknown.
    {
      address: 'a@newcomer.example',
      vaspDid: 'did:key:z6Mkabc',
      contactEmail: 'b@newcomer.example',
      want: [null, true, false],
    },
  ];
  for (const c of cases) {
    const r = reviewClaimAddress({ address: c.address, applicant: c, originator });
    assert.deepEqual([r.matchesDid, r.matchesContact, r.originatorDomain], c.want, JSON.stringify(c));
    assert.equal(r.address, c.address);
    assert.deepEqual(r.chosenBy, {
      organizationId: originator.organizationId,
      name: 'Sender AG',
      vaspDid: originator.vaspDid,
    });
  }
  const gone = reviewClaimAddress({
    address: 'a@x.example',
    applicant: { vaspDid: 'did:web:x.example', contactEmail: 'a@x.example' },
    originator: null,
  });
  assert.deepEqual([gone.chosenBy, gone.originatorDomain, gone.domain], [null, false, 'x.example']);
});
