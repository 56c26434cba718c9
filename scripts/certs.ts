/**
 * Certificates for the TRP tests and the demo, made by the `openssl` command in a temporary
 * directory: a CA, and leaf certificates it signs for 127.0.0.1 and localhost (server and client
 * use), the way an operator would issue them to TRP peers. Another CA makes certificates that no
 * hub trusting the first one accepts.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Leaf {
  certFile: string;
  keyFile: string;
  cert: string;
  key: string;
}

export class TestCa {
  readonly certFile: string;
  readonly cert: string;
  private readonly keyFile: string;
  private serial = 1;

  private constructor(
    private readonly dir: string,
    readonly name: string,
  ) {
    this.keyFile = join(dir, `${name}-ca.key`);
    this.certFile = join(dir, `${name}-ca.pem`);
    openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', this.keyFile]);
    openssl([
      'req',
      '-x509',
      '-new',
      '-key',
      this.keyFile,
      '-sha256',
      '-days',
      '2',
      '-subj',
      `/CN=${name} test CA`,
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
      '-out',
      this.certFile,
    ]);
    this.cert = readFileSync(this.certFile, 'utf8');
  }

  /** A CA in a fresh temporary directory; `remove` deletes it with everything it issued. */
  static create(name: string, dir = mkdtempSync(join(tmpdir(), 'trh-certs-'))): TestCa {
    return new TestCa(dir, name);
  }

  /** A certificate for `cn`, valid for 127.0.0.1 and localhost, as server and as client. */
  issue(cn: string): Leaf {
    const base = join(this.dir, `${this.name}-${cn}-${this.serial++}`);
    const keyFile = `${base}.key`;
    const csr = `${base}.csr`;
    const certFile = `${base}.pem`;
    const ext = `${base}.ext`;
    writeFileSync(
      ext,
      'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\n' +
        'extendedKeyUsage=serverAuth,clientAuth\nsubjectAltName=IP:127.0.0.1,DNS:localhost\n',
    );
    openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', keyFile]);
    openssl(['req', '-new', '-key', keyFile, '-subj', `/CN=${cn}/O=${cn} test VASP`, '-out', csr]);
    openssl([
      'x509',
      '-req',
      '-in',
      csr,
      '-CA',
      this.certFile,
      '-CAkey',
      this.keyFile,
      '-set_serial',
      String(this.serial),
      '-days',
      '2',
      '-sha256',
      '-extfile',
      ext,
      '-out',
      certFile,
    ]);
    return { certFile, keyFile, cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8') };
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

function openssl(args: string[]): void {
  execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
}
