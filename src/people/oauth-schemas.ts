/**
 * The OAuth endpoints' request schemas (TypeBox): dynamic client registration is validated with
 * ClientRegistrationSchema, and all of them are published in the OpenAPI document (src/http/openapi.ts),
 * so the fuzzer reads them from there. Unknown members are allowed and ignored, as RFC 7591 §2 and
 * RFC 6749 §3.1/§3.2 require of an authorization server.
 */
import { Type } from "@sinclair/typebox";

/**
 * Redirect URIs a client may register (RFC 8252, OAuth 2.1 §2.3.1): https; http only on a loopback
 * address (a native app's local listener, any port); or a private-use scheme (`com.example.app:/cb`,
 * `vscode:`, `cursor:`), never the schemes a browser would run or read (javascript, data, file, …).
 * Lower-case schemes only; no whitespace and no fragment.
 */
export const REDIRECT_URI_PATTERN =
  "^(?:https://[^\\s#/?]+(?:[/?][^\\s#]*)?" +
  "|http://(?:localhost|127\\.0\\.0\\.1|\\[::1\\])(?::[0-9]{1,5})?(?:[/?][^\\s#]*)?" +
  "|(?!(?:https?|javascript|data|vbscript|file|about|blob|wss?|ftp):)[a-z][a-z0-9+.-]*:[^\\s#]+)$";

const text = (maxLength: number, description: string) => Type.String({ maxLength, description });

/** A name shown to people: no C0/C1 controls, no bidi marks, embeddings, overrides or isolates. */
export const DISPLAY_NAME_PATTERN = "^[^\\u0000-\\u001f\\u007f-\\u009f\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069]*$";

export const ClientRegistrationSchema = Type.Object(
  {
    redirect_uris: Type.Array(Type.String({ minLength: 1, maxLength: 2000, pattern: REDIRECT_URI_PATTERN }), {
      minItems: 1,
      maxItems: 10,
      description: "Where the authorization answer is sent: https, http on a loopback address (any port), or a private-use scheme.",
    }),
    token_endpoint_auth_method: Type.Optional(
      Type.Union([Type.Literal("none"), Type.Literal("client_secret_post"), Type.Literal("client_secret_basic")], {
        description: "`none` for a public client (no secret); default client_secret_basic (RFC 7591).",
      }),
    ),
    grant_types: Type.Optional(
      Type.Array(Type.Union([Type.Literal("authorization_code"), Type.Literal("refresh_token")]), {
        maxItems: 2,
        description: "Default [authorization_code]; refresh tokens are issued to clients that list refresh_token.",
      }),
    ),
    response_types: Type.Optional(Type.Array(Type.Literal("code"), { maxItems: 1 })),
    client_name: Type.Optional(
      Type.String({
        maxLength: 200,
        // No control or bidirectional-formatting characters: the name is shown inside Quarry's own
        // sentences on the consent page, and an unclosed right-to-left override would reorder them.
        pattern: DISPLAY_NAME_PATTERN,
        description: "Shown to the person asked to connect it, and in their dashboard (no control or bidi-formatting characters).",
      }),
    ),
    client_uri: Type.Optional(text(2000, "The app's home page.")),
    logo_uri: Type.Optional(text(2000, "Not shown (the dashboard loads nothing from elsewhere).")),
    tos_uri: Type.Optional(text(2000, "")),
    policy_uri: Type.Optional(text(2000, "")),
    scope: Type.Optional(text(1000, "Ignored: the one scope is `quarry`.")),
    contacts: Type.Optional(Type.Array(Type.String({ maxLength: 254 }), { maxItems: 10 })),
    software_id: Type.Optional(text(200, "")),
    software_version: Type.Optional(text(200, "")),
  },
  {
    required: ["redirect_uris"],
    additionalProperties: true,
    description: "RFC 7591 client metadata. Members not listed are ignored, as RFC 7591 §2 requires.",
  },
);

const formText = (description: string) => Type.String({ description });

export const TokenRequestSchema = Type.Object(
  {
    grant_type: Type.Union([Type.Literal("authorization_code"), Type.Literal("refresh_token")]),
    code: Type.Optional(formText("authorization_code: the code from the redirect.")),
    code_verifier: Type.Optional(formText("authorization_code: the PKCE verifier (43-128 characters).")),
    redirect_uri: Type.Optional(formText("authorization_code: the redirect URI of the authorization request.")),
    refresh_token: Type.Optional(formText("refresh_token: the refresh token (it rotates: use the new one each time).")),
    resource: Type.Optional(formText("RFC 8707 resource indicator: this server's URL or one under it.")),
    scope: Type.Optional(formText("Ignored: the one scope is `quarry`.")),
    client_id: Type.Optional(formText("client_secret_post and public clients; or HTTP Basic instead.")),
    client_secret: Type.Optional(formText("client_secret_post.")),
  },
  { required: ["grant_type"], additionalProperties: true, description: "application/x-www-form-urlencoded (RFC 6749 §4.1.3, §6)." },
);

export const RevokeRequestSchema = Type.Object(
  {
    token: formText("An access or refresh token; either ends the whole connection (grant)."),
    token_type_hint: Type.Optional(Type.Union([Type.Literal("access_token"), Type.Literal("refresh_token")])),
    client_id: Type.Optional(formText("client_secret_post and public clients; or HTTP Basic instead.")),
    client_secret: Type.Optional(formText("client_secret_post.")),
  },
  { required: ["token"], additionalProperties: true, description: "application/x-www-form-urlencoded (RFC 7009)." },
);
