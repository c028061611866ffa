// Jest setupFilesAfterEnv of both projects: after every test, the command line runs it left in
// flight are cancelled and awaited (support/runs-in-flight.ts), so that no test's work goes on
// into the next one. A run that had to be ended is reported on stderr: its test timed out or
// did not await it.
import { afterEach, expect } from '@jest/globals'
import { endRunsInFlight } from './runs-in-flight.js'

afterEach(async () => {
  const ended = await endRunsInFlight('its test ended')
  if (ended > 0) {
    process.stderr.write(
      `${expect.getState().currentTestName ?? 'a test'}: ended ${ended} command line ` +
        `run${ended === 1 ? '' : 's'} it left in flight\n`
    )
  }
})
