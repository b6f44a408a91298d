import { SvcCommand } from '../src/cli/base-command.js';

export default class OpenApi extends SvcCommand {
  static override summary =
    "Print the daemon's OpenAPI 3.1 document (the same one GET /v1/openapi.json serves).";
  static override enableJsonFlag = false;
  static override examples = ['<%= config.bin %> openapi > openapi.json'];

  async run(): Promise<void> {
    await this.parse(OpenApi);
    const { daemonOpenApi } = await import('../src/daemon/app.js');
    const { describeOnlyDeps } = await import('../src/daemon/describe-only.js');
    process.stdout.write(JSON.stringify(daemonOpenApi(describeOnlyDeps()), null, 2) + '\n');
  }
}
