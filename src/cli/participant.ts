/** Participant commands: a key pair to register, and the reference webhook receiver. */
import { readFileSync, writeFileSync } from 'node:fs';
import type { Command } from 'commander';

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
    .option('--port <port>', 'port to listen on', '9000')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .requiredOption(
      '--secret <whsec>',
      'webhook secret (repeat for the previous one during rotation)',
      collect,
      [],
    )
    .option('--private-key <file>', 'PEM private key for BASIC encrypted personal data')
    .action(async (o: { port: string; host: string; secret: string[]; privateKey?: string }) => {
      const { createReceiver } = await import('../participant/receiver.js');
      const server = createReceiver({
        secrets: o.secret,
        privateKeyPem: o.privateKey ? readFileSync(o.privateKey, 'utf8') : undefined,
      });
      await new Promise<void>((resolve) => server.listen(Number(o.port), o.host, resolve));
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : o.port;
      process.stdout.write(`receiver listening on http://${o.host}:${port}/v1/notify/<event>\n`);
      const stop = () => server.close(() => process.exit(0));
      process.on('SIGTERM', stop);
      process.on('SIGINT', stop);
    });
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}
