/**
 * Logins: a person's email and password for the dashboard of one account. The operator creates
 * them with the CLI (`quarry logins create <account> <email>`, the password read from stdin); the
 * password is kept only as a scrypt hash (passwords.ts). A login sees only its own account.
 */
import type { Clock } from "../clock.ts";
import { ApiError } from "../errors.ts";
import type { IdGenerator } from "../ids.ts";
import type { AccountStore, LoginRow, PeopleStore } from "../store/types.ts";
import { decoyHash, hashPassword, passwordProblem, verifyPassword } from "./passwords.ts";

/** The longest email address (RFC 5321's path limit). */
export const EMAIL_MAX = 254;
const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** An email as logins store it: trimmed, lower-cased (addresses are matched without regard to case). */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** Why an email is refused, or null. */
export function emailProblem(email: string): string | null {
  const e = normalizeEmail(email);
  if (e.length === 0) return "the email is empty";
  if (e.length > EMAIL_MAX) return `the email is longer than ${EMAIL_MAX} characters`;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\u0000-\u001f\u007f]/.test(e) || !EMAIL_PATTERN.test(e)) return `"${e}" is not an email address`;
  return null;
}

export class LoginService {
  constructor(
    private readonly store: PeopleStore & Pick<AccountStore, "getAccount">,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {}

  async create(accountId: string, email: string, password: string): Promise<LoginRow> {
    if ((await this.store.getAccount(accountId)) === null) throw new ApiError("not_found", `No account "${accountId}".`);
    const problem = emailProblem(email) ?? passwordProblem(password);
    if (problem) throw new ApiError("invalid_request", `${problem[0]!.toUpperCase()}${problem.slice(1)}.`);
    const login: LoginRow = {
      id: this.ids.id("login"),
      accountId,
      email: normalizeEmail(email),
      passwordHash: await hashPassword(password),
      createdAt: this.clock.now(),
      lastSignInAt: null,
    };
    if (!(await this.store.createLogin(login))) {
      throw new ApiError("invalid_request", `A login for ${login.email} exists already.`);
    }
    return login;
  }

  /**
   * The login these credentials sign in, or null. An unknown email costs the same scrypt check as
   * a known one (decoyHash), so the answer's timing does not tell which emails have a login.
   */
  async verify(email: string, password: string): Promise<LoginRow | null> {
    if (emailProblem(email) !== null || passwordProblem(password) !== null) {
      await verifyPassword(password.slice(0, 256), await decoyHash());
      return null;
    }
    const login = await this.store.findLoginByEmail(normalizeEmail(email));
    const ok = await verifyPassword(password, login?.passwordHash ?? (await decoyHash()));
    if (!login || !ok) return null;
    await this.store.noteSignIn(login.id, this.clock.now());
    return login;
  }

  async mustFind(email: string): Promise<LoginRow> {
    const login = await this.store.findLoginByEmail(normalizeEmail(email));
    if (!login) throw new ApiError("not_found", `No login for ${normalizeEmail(email)}.`);
    return login;
  }

  /** A new password; the login's dashboard sessions end. */
  async setPassword(email: string, password: string): Promise<LoginRow> {
    const login = await this.mustFind(email);
    const problem = passwordProblem(password);
    if (problem) throw new ApiError("invalid_request", `${problem[0]!.toUpperCase()}${problem.slice(1)}.`);
    await this.store.setLoginPassword(login.id, await hashPassword(password));
    return login;
  }

  /** Delete a login; its dashboard sessions end. */
  async remove(email: string): Promise<LoginRow> {
    const login = await this.mustFind(email);
    await this.store.deleteLogin(login.id);
    return login;
  }
}
