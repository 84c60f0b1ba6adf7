// One line of `sparehand doctor`: what each group of checks (doctor.ts, doctor-deps.ts) returns.
export interface DoctorCheck {
  name: string;
  ok: boolean;
  detail: string;
  /** Not a failure, but to be looked at (printed `warn`): a setting of the user's that makes a tool fail closed. */
  warning?: true;
}
