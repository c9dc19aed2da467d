/**
 * An MCP host's OAuth state kept in memory, as the SDK's OAuthClientProvider asks for it: the client
 * information, tokens, PKCE verifier and the authorization URL the host would open (tests do the
 * browser's part themselves). A host says who it is (redirect URI, client metadata) in a subclass.
 */
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";

export abstract class MemoryOAuthHost implements OAuthClientProvider {
  info: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = "";
  authorizationUrl: URL | undefined;

  abstract get redirectUrl(): string;
  abstract get clientMetadata(): OAuthClientMetadata;

  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier;
  }
}
