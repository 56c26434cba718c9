/** Shapes of the people API (SPEC §17): validator, OpenAPI document and type at once. */
import { Type } from 'typebox';
import { TOKEN_PATTERN } from '../claims/tokens.js';
import { PASSWORD_MAX, PASSWORD_MIN } from './passwords.js';
import { OPERATOR_ROLES, ORG_ROLES } from './roles.js';

const Email = Type.String({ minLength: 3, maxLength: 254, description: 'An e-mail address.' });
const OrgRole = Type.Enum([...ORG_ROLES], {
  description:
    '`viewer` reads without personal data; `analyst` also personal data and every transaction action; `admin` also settings, keys, users and the webhook secret.',
});
const OperatorRole = Type.Enum([...OPERATOR_ROLES], {
  description: '`viewer` reads the operator API; `admin` may do everything an operator key may.',
});

export const User = Type.Object({
  id: Type.String({ format: 'uuid' }),
  organizationId: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], {
    description: 'null for an operator user.',
  }),
  email: Type.String(),
  name: Type.String(),
  role: Type.Enum([...ORG_ROLES]),
  totpEnabled: Type.Boolean({ description: 'Whether the account signs in with a second factor.' }),
  createdAt: Type.String({ format: 'date-time' }),
});

export const Invitation = Type.Object({
  id: Type.String({ format: 'uuid' }),
  email: Type.String(),
  role: Type.Enum([...ORG_ROLES]),
  expiresAt: Type.String({ format: 'date-time' }),
});

export const Invite = Type.Object({ email: Email, role: OrgRole }, { additionalProperties: false });
export const InviteOperator = Type.Object(
  { email: Email, role: OperatorRole },
  { additionalProperties: false },
);

export const Accept = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'How the person is shown; printable text.',
    }),
    password: Type.String({
      minLength: PASSWORD_MIN,
      maxLength: PASSWORD_MAX,
      description: `At least ${PASSWORD_MIN} characters.`,
    }),
  },
  { additionalProperties: false },
);

export const TokenParams = Type.Object(
  { token: Type.String({ pattern: TOKEN_PATTERN.source }) },
  { additionalProperties: false },
);
export const UserParams = Type.Object(
  { id: Type.String({ format: 'uuid' }) },
  { additionalProperties: false },
);

export const UserAnswer = Type.Object({ user: User });
export const Me = Type.Object({
  user: User,
  totpRequired: Type.Boolean({
    description: 'The organization requires a second factor; without one the account may only enrol.',
  }),
});
export const UserList = Type.Object({
  users: Type.Array(User),
  invitations: Type.Array(Invitation, { description: 'Invitations not accepted yet and still valid.' }),
});
export const ChangeRole = Type.Object({ role: OrgRole }, { additionalProperties: false });
export const ChangeOperatorRole = Type.Object({ role: OperatorRole }, { additionalProperties: false });

export const SignIn = Type.Object(
  {
    email: Type.String({ maxLength: 254 }),
    password: Type.String({ maxLength: PASSWORD_MAX }),
    totp: Type.Optional(
      Type.String({
        maxLength: 32,
        description: 'The current 6-digit code, or one of the recovery codes (each works once).',
      }),
    ),
  },
  { additionalProperties: false },
);
export const SignedIn = Type.Object({
  user: User,
  csrfToken: Type.String({
    description: 'Send it as `x-csrf-token` with every POST, PUT, PATCH and DELETE of this session.',
  }),
  totpRequired: Type.Boolean({
    description: 'The organization requires a second factor and the account has none: enrol it first.',
  }),
});

export const TotpEnrolment = Type.Object({
  secret: Type.String({ description: 'Base32; shown only now.' }),
  otpauthUrl: Type.String({ description: 'otpauth://totp/… for an authenticator app (as a QR code).' }),
});
export const TotpConfirm = Type.Object(
  { code: Type.String({ pattern: '^[0-9]{6}$' }) },
  { additionalProperties: false },
);
export const RecoveryCodes = Type.Object({
  recoveryCodes: Type.Array(Type.String(), {
    description: 'Ten single-use codes that stand in for a TOTP code at sign-in. Shown only now.',
  }),
});

export const Policy = Type.Object(
  { requireTotp: Type.Boolean({ description: 'Everyone in the organization must sign in with TOTP.' }) },
  { additionalProperties: false },
);

export const OwnSession = Type.Object({
  id: Type.String({ format: 'uuid', description: 'Names the session; not its secret.' }),
  createdAt: Type.String({ format: 'date-time', description: 'When it was signed in.' }),
  lastSeenAt: Type.String({ format: 'date-time' }),
  expiresAt: Type.String({ format: 'date-time', description: 'Its absolute end (HUB_SESSION_MAX).' }),
  userAgent: Type.Union([Type.String(), Type.Null()], { description: 'The browser it signed in from.' }),
  clientAddress: Type.Union([Type.String(), Type.Null()], {
    description: 'The client address it signed in from.',
  }),
  current: Type.Boolean({ description: 'The session of this request.' }),
});
export const OwnSessions = Type.Object({ sessions: Type.Array(OwnSession) });
export const SessionParams = Type.Object(
  { id: Type.String({ format: 'uuid' }) },
  { additionalProperties: false },
);

export const ChangePassword = Type.Object(
  {
    currentPassword: Type.String({ maxLength: PASSWORD_MAX }),
    newPassword: Type.String({
      maxLength: PASSWORD_MAX,
      description: `At least ${PASSWORD_MIN} characters, not the current one.`,
    }),
  },
  { additionalProperties: false },
);
export const PasswordChanged = Type.Object({
  otherSessionsEnded: Type.Integer({ minimum: 0, description: 'The person’s other sessions, now ended.' }),
});
