/**
 * Secret values met while building (1Password fields, envfile values, GenesisSecret data,
 * helmfile vars from `op`, repository passwords). Each is handed to the caller's sink (the
 * action wires it to core.setSecret, which masks it in the job log) and remembered, so that
 * tool output and error messages can be redacted before anyone sees them.
 */

/** Registers secret values and redacts them from text. */
export interface SecretRegistry {
  /** Remembers `value` (and each of its lines) and passes it to the sink; empty values are ignored. */
  registerSecret: (value: string) => void
  /** `text` with every registered value replaced by `***` (longest values first). */
  redact: (text: string) => string
}

/** The placeholder the GitHub runner also uses for masked values. */
export const REDACTED = '***'

/**
 * Creates a registry that forwards each new value to `sink`. A multi-line value is also
 * registered line by line, because the runner masks log lines one at a time and a tool's
 * stderr may quote a single line of it.
 */
export function createSecretRegistry(sink: (value: string) => void = () => {}): SecretRegistry {
  const values = new Set<string>()
  let ordered: string[] = []
  const remember = (value: string): void => {
    if (value.trim() === '' || values.has(value)) return
    values.add(value)
    sink(value)
    ordered = [...values].sort((a, b) => b.length - a.length)
  }
  return {
    registerSecret: (value) => {
      remember(value)
      if (/[\r\n]/.test(value)) for (const line of value.split(/\r?\n/)) remember(line)
    },
    redact: (text) => {
      let out = text
      for (const value of ordered) out = out.split(value).join(REDACTED)
      return out
    }
  }
}
