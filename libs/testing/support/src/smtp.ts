import net from 'node:net';

/** One message a test SMTP server accepted. */
export interface SmtpMessage {
  from: string;
  to: string[];
  /** The message as sent (headers and body), dot-unstuffed. */
  data: string;
  /** Its Message-ID header, if any. */
  messageId: string | null;
  receivedAt: number;
}

export interface SmtpServer {
  /** `smtp://127.0.0.1:<port>`: the value of SMTP_URL. */
  url: string;
  port: number;
  messages: SmtpMessage[];
  /** Refuses every recipient with 550, echoing the address, as a real server does for an unknown mailbox. */
  rejectRecipients: boolean;
  /**
   * Runs once a message's data has arrived and before the server answers 250 (accepted): a test can fault the
   * sender exactly there. The message is recorded before the hook runs; a hook that throws drops the
   * connection without an answer.
   */
  beforeAccept: ((m: SmtpMessage) => void | Promise<void>) | null;
  close(): Promise<void>;
}

/** A minimal SMTP server on loopback (no TLS, no authentication) that records what it accepts. */
export async function startSmtpServer(): Promise<SmtpServer> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    socket.setEncoding('utf8');
    const reply = (line: string) => {
      if (!socket.destroyed) socket.write(`${line}\r\n`);
    };
    let from = '';
    let to: string[] = [];
    let data: string[] | null = null;
    let buffer = '';
    let queue = Promise.resolve();
    const handle = async (line: string): Promise<void> => {
      if (data) {
        if (line !== '.') {
          data.push(line.startsWith('..') ? line.slice(1) : line);
          return;
        }
        const text = data.join('\r\n');
        data = null;
        const m: SmtpMessage = { from, to, data: text, messageId: /^message-id:\s*(.+)$/im.exec(text)?.[1]?.trim() ?? null, receivedAt: Date.now() };
        smtp.messages.push(m);
        try {
          if (smtp.beforeAccept) await smtp.beforeAccept(m);
        } catch {
          // the hook threw: the connection drops without an answer, as when the reply is lost
          socket.destroy();
          return;
        }
        reply('250 2.0.0 OK: queued');
        return;
      }
      const [verb = ''] = line.split(' ');
      switch (verb.toUpperCase()) {
        case 'EHLO':
        case 'HELO':
          reply('250 verity-test-smtp');
          return;
        case 'MAIL':
          from = /<([^>]*)>/.exec(line)?.[1] ?? '';
          to = [];
          reply('250 2.1.0 OK');
          return;
        case 'RCPT': {
          const address = /<([^>]*)>/.exec(line)?.[1] ?? '';
          if (smtp.rejectRecipients) {
            reply(`550 5.1.1 <${address}>: Recipient address rejected: User unknown in virtual mailbox table`);
            return;
          }
          to.push(address);
          reply('250 2.1.5 OK');
          return;
        }
        case 'DATA':
          data = [];
          reply('354 End data with <CR><LF>.<CR><LF>');
          return;
        case 'RSET':
          from = '';
          to = [];
          reply('250 2.0.0 OK');
          return;
        case 'QUIT':
          reply('221 2.0.0 Bye');
          socket.end();
          return;
        default:
          reply('250 OK');
      }
    };
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      let i: number;
      while ((i = buffer.indexOf('\r\n')) >= 0) {
        const line = buffer.slice(0, i);
        buffer = buffer.slice(i + 2);
        queue = queue.then(() => handle(line));
      }
    });
    reply('220 verity-test-smtp ESMTP');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  const smtp: SmtpServer = {
    url: `smtp://127.0.0.1:${port}`,
    port,
    messages: [],
    rejectRecipients: false,
    beforeAccept: null,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return smtp;
}
