import { SvcError } from '../../core/errors.js';

/** A witness or timestamp-authority URL from a flag: http or https, no credentials in it. */
export function attestUrl(flag: string, text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new SvcError('usage', `--${flag} ${JSON.stringify(text)}: expected an http or https URL`, {
      field: flag,
    });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new SvcError('usage', `--${flag} ${JSON.stringify(text)}: expected an http or https URL`, {
      field: flag,
    });
  }
  if (url.username !== '' || url.password !== '') {
    // It would be logged with every failure.
    throw new SvcError('usage', `--${flag}: a URL with credentials in it is refused`, { field: flag });
  }
  return url.toString();
}
