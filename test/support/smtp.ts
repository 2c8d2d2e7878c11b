// A real SMTP server on loopback for the tests that read the mail the service
// sends (sign-in links), and the helpers that read a received message.
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  user?: string;
  from: string;
  to: string[];
  raw: string;
}

export interface TestSmtp {
  port: number;
  mails: ReceivedMail[];
  /** Refuses these recipients at RCPT TO with 550 (a mailbox that does not exist). */
  refuse: Set<string>;
  /** Holds every message at DATA until the returned function is called (the mail stays queued meanwhile). */
  hold(): () => void;
  close(): Promise<void>;
}

/** A real SMTP server on loopback that wants the given login and keeps what it receives. */
export async function startSmtp(login: { user: string; pass: string }): Promise<TestSmtp> {
  const mails: ReceivedMail[] = [];
  const refuse = new Set<string>();
  let gate: Promise<void> = Promise.resolve();
  const server = new SMTPServer({
    secure: false,
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authMethods: ['PLAIN', 'LOGIN'],
    logger: false,
    onAuth(auth, _session, cb) {
      if (auth.username === login.user && auth.password === login.pass) cb(null, { user: auth.username });
      else cb(new Error('invalid login'));
    },
    onRcptTo(address, _session, cb) {
      if (!refuse.has(address.address.toLowerCase())) return cb();
      cb(Object.assign(new Error('5.1.1 no such mailbox'), { responseCode: 550 }));
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('error', cb);
      stream.on('end', async () => {
        await gate;
        mails.push({
          user: session.user as string | undefined,
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        cb();
      });
    },
  });
  server.on('error', () => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const addr = server.server.address();
  return {
    port: typeof addr === 'object' && addr ? addr.port : 0,
    mails,
    refuse,
    hold() {
      let release!: () => void;
      gate = new Promise<void>((r) => (release = r));
      return () => release();
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The MIME parts of a raw message, quoted-printable soft breaks undone, by content type. */
export function partsOf(raw: string): Map<string, string> {
  const boundary = /boundary="?([^";\r\n]+)"?/i.exec(raw)?.[1];
  const parts = new Map<string, string>();
  if (!boundary) return parts;
  for (const chunk of raw.split(`--${boundary}`).slice(1, -1)) {
    const split = chunk.indexOf('\r\n\r\n');
    const head = chunk.slice(0, split);
    let body = chunk.slice(split + 4);
    // Quoted-printable escapes bytes: decoded to bytes, then read as UTF-8 (a "×" is two of them).
    if (/quoted-printable/i.test(head)) body = Buffer.from(body.replace(/=\r\n/g, '').replace(/=([0-9A-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16))), 'latin1').toString('utf8');
    else if (/base64/i.test(head)) body = Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
    parts.set(/content-type:\s*([^;\r\n]+)/i.exec(head)?.[1].toLowerCase() ?? '', body);
  }
  return parts;
}

export const LINK = /https?:\/\/[^\s"<>]+\/_signin\/[A-Za-z0-9_-]{43}/;

export function linkIn(mail: ReceivedMail): string {
  const textPart = partsOf(mail.raw).get('text/plain') ?? '';
  const link = LINK.exec(textPart)?.[0];
  if (!link) throw new Error(`no sign-in link in the mail:\n${mail.raw}`);
  return link;
}
