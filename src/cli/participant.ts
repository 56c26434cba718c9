/** Participant commands: a key pair to register, and the reference webhook receiver. */

import { createPrivateKey } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { type Command, InvalidArgumentError } from 'commander';

export function registerParticipantCommands(program: Command) {
  program
    .command('keygen')
    .description('generate an X25519 key pair; prints the public PEM to register as publicKey')
    .requiredOption('--out <file>', 'where to write the private key (PEM, mode 0600)')
    .action(async (o: { out: string }) => {
      const { generateParticipantKeyPair } = await import('../participant/webhooks.js');
      const { publicKeyPem, privateKeyPem } = generateParticipantKeyPair();
      writeFileSync(o.out, privateKeyPem, { mode: 0o600, flag: 'wx' });
      process.stdout.write(publicKeyPem);
    });

  program
    .command('receiver')
    .description('run the reference webhook receiver (verifies, decrypts, de-duplicates, prints)')
    .option('--port <port>', 'port to listen on', portArgument, 9000)
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .requiredOption(
      '--secret <whsec>',
      'webhook secret (repeat for the previous one during rotation)',
      collect,
      [],
    )
    .option('--private-key <file>', 'PEM private key for BASIC encrypted personal data')
    .option('--show-pii', 'print the names in decrypted personal data (by default only how many persons)')
    .action(
      async (o: { port: number; host: string; secret: string[]; privateKey?: string; showPii?: boolean }) => {
        const { createReceiver } = await import('../participant/receiver.js');
        const { decodeWebhookSecret } = await import('../deliveries/signing.js');
        for (const secret of o.secret) {
          try {
            decodeWebhookSecret(secret);
          } catch (err) {
            throw new InvalidArgumentError(`--secret: ${(err as Error).message}`);
          }
        }
        const privateKeyPem = o.privateKey ? readFileSync(o.privateKey, 'utf8') : undefined;
        if (privateKeyPem !== undefined) {
          try {
            createPrivateKey(privateKeyPem);
          } catch {
            throw new InvalidArgumentError(`--private-key: ${o.privateKey} holds no PEM private key`);
          }
        }
        const server = createReceiver({ secrets: o.secret, privateKeyPem, showPii: o.showPii === true });
        await new Promise<void>((resolve, reject) => {
          server.once('error', reject);
          server.listen(o.port, o.host, () => {
            server.off('error', reject);
            resolve();
          });
        });
        const address = server.address();
        const port = typeof address === 'object' && address ? address.port : o.port;
        process.stdout.write(`receiver listening on http://${o.host}:${port}/v1/notify/<event>\n`);
        const stop = () => server.close(() => process.exit(0));
        process.on('SIGTERM', stop);
        process.on('SIGINT', stop);
      },
    );
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function portArgument(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535)
    throw new InvalidArgumentError('expected a port number, 0 to 65535.');
  return port;
}
