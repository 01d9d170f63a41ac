/** An error the CLI reports on stderr with a chosen exit code (1 = failed, 2 = usage). */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = 1,
  ) {
    super(message);
    this.name = 'CliError';
  }
}
