/** The local command line over the same engine as the action; returns the exit code. */
export async function runCli(argv: readonly string[]): Promise<number> {
  await Promise.resolve()
  process.stderr.write(`error: unknown command ${JSON.stringify(argv.join(' '))}\n`)
  return 1
}
