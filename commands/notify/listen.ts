import { Flags } from '@oclif/core';
import { SvcCommand } from '../../src/cli/base-command.js';
import { untilSignal } from '../../src/cli/signals.js';
import { listenError } from '../../src/http/listen-address.js';
import { eventLine, receiverSecrets, startWebhookReceiver } from '../../src/notify/webhook-receiver.js';
import { readTextFile } from '../../src/provisioning/text-file.js';

export default class NotifyListen extends SvcCommand {
  static override summary =
    'Receive webhook deliveries on this machine: verify each signature, print one line per event, until Ctrl-C.';
  static override description =
    "A receiver for trying a webhook destination (plain http on a loopback address, which the daemon delivers to only with --notify-allow-loopback-http; svc quickstart allows it). Each POST is verified as Standard Webhooks 1.0 with the SDK's verifyWebhook against the secret(s) in --secret-file (both during a rotation): a verified event is answered 204 and printed once per event id (type, id, and the approval's capability, amount, status); an unsigned, forged or replayed one is answered 401 and reported on stderr.";
  static override examples = [
    '<%= config.bin %> notify listen --listen 127.0.0.1:8094 --secret-file first-hook.secret',
  ];
  static override enableJsonFlag = false;
  static override flags = {
    listen: Flags.string({
      summary: 'The loopback address to listen on (127.0.0.1:PORT, [::1]:PORT; port 0 for a free one).',
      required: true,
    }),
    'secret-file': Flags.string({
      summary: "The destination's signing secret (whsec_…), or several, one per line, during a rotation.",
      required: true,
    }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(NotifyListen);
    const secrets = receiverSecrets(readTextFile('secret-file', flags['secret-file'], 8192));
    const stop = untilSignal();
    let receiver;
    try {
      receiver = await startWebhookReceiver({
        listen: flags.listen,
        secrets,
        event: (e) => this.log(eventLine(e)),
        refused: (code) => this.logToStderr(`refused a delivery: ${code}`),
      });
    } catch (err) {
      throw (err as { code?: unknown }).code === 'EADDRINUSE' ||
        (err as { syscall?: unknown }).syscall === 'listen'
        ? listenError(flags.listen, err)
        : err;
    }
    this.logToStderr(`svc notify listen listening on ${receiver.url}`);
    await stop;
    await receiver.close();
  }
}
