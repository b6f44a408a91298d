import type { Hook } from '@oclif/core';
import { SvcError } from '../../core/errors.js';
import { closestCommand } from '../command-suggestion.js';
import { exitCodeFor } from '../exit-codes.js';

/**
 * A command that does not exist, answered the way every other svc error is: a reason in the
 * space-separated form users type, a remedy (the nearest command, or help), and exit code 2.
 * Never a prompt: a script that mistypes must fail, not wait on a question.
 */
const hook: Hook.CommandNotFound = async function (opts) {
  const typed = opts.id.replaceAll(':', ' ');
  const known = opts.config.commands.filter((c) => !c.hidden).map((c) => c.id);
  const near = closestCommand(opts.id, known);
  const err = new SvcError('usage', `\`svc ${typed}\` is not an svc command`, {
    remedy: near
      ? `did you mean \`svc ${near}\`? Run \`svc ${near} --help\` for its usage`
      : 'run `svc --help` for the list of commands',
  });
  process.exitCode = exitCodeFor(err);
  if ((opts.argv ?? []).includes('--json')) {
    process.stdout.write(`${JSON.stringify({ error: err.toBody() })}\n`);
    return;
  }
  process.stderr.write(`Error: ${err.reason}\nRemedy: ${err.remedy}\n`);
};

export default hook;
