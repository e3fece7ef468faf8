// Keelson's OAuth 2.1 client for one HTTP MCP server, as the SDK's `OAuthClientProvider`: the
// SDK does the protocol (protected-resource and authorization-server metadata discovery, dynamic
// client registration, PKCE, the code exchange, refresh, scope step-up on 403); this class keeps
// what it learns in an `McpAuthStore` and decides what may happen unattended. Without an
// `authorize` callback (a turn, a headless run) only stored tokens and their refresh are used: a
// server that needs a new authorization is `McpError('unauthorized')` naming `keelson mcp login`,
// and no client is registered on its behalf. With one (`keelson mcp login`, the conformance
// client) the authorization URL goes to it and the code it returns is exchanged by the
// connection (`takeCode`). Tokens are never logged; they leave only in the Authorization header.
import { randomBytes } from "node:crypto";
import type { OAuthClientProvider, OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import { authUrl } from "./auth-store.js";
import { authFailureText } from "./failure.js";
import { McpError, type McpAuthOptions, type McpAuthRecord, type McpOAuthSettings } from "./types.js";

export const DEFAULT_REDIRECT_URL = "http://127.0.0.1/callback";

export class KeelsonOAuthProvider implements OAuthClientProvider {
  readonly #server: string;
  readonly #describe: string;
  readonly #url: string;
  readonly #options: McpAuthOptions;
  readonly #settings: McpOAuthSettings;
  #record: McpAuthRecord | undefined;
  #loading: Promise<McpAuthRecord> | undefined;
  #verifier: string | undefined;
  #pendingCode: Promise<string> | undefined;
  #discovery: OAuthDiscoveryState | undefined;
  /** A client ID metadata document (SEP-991), used as the client id where the server supports it. */
  readonly clientMetadataUrl?: string;

  constructor(server: string, describe: string, url: string, options: McpAuthOptions, settings: McpOAuthSettings = {}) {
    this.#server = server;
    this.#describe = describe;
    this.#url = authUrl(url);
    this.#options = options;
    this.#settings = settings;
    if (settings.clientMetadataUrl !== undefined) this.clientMetadataUrl = settings.clientMetadataUrl;
  }

  get redirectUrl(): string {
    return this.#options.redirectUrl ?? DEFAULT_REDIRECT_URL;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.#options.clientName ?? "keelson",
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
      ...(this.#settings.scope === undefined ? {} : { scope: this.#settings.scope }),
    };
  }

  state(): string {
    return randomBytes(16).toString("hex");
  }

  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    const record = await this.#load();
    const stored = record.client as OAuthClientInformationMixed | undefined;
    if (this.#settings.clientId !== undefined) {
      // Pre-registered: the configured id (and secret) — stored only to keep the issuer it is bound to.
      const issuer = stored?.client_id === this.#settings.clientId ? stored.issuer : undefined;
      return {
        client_id: this.#settings.clientId,
        ...(this.#settings.clientSecret === undefined ? {} : { client_secret: this.#settings.clientSecret }),
        ...(issuer === undefined ? {} : { issuer }),
      };
    }
    if (stored !== undefined && this.#interactive) {
      // A registration for another redirect URI (an earlier login's port) cannot serve this login.
      const uris = (stored as { redirect_uris?: unknown }).redirect_uris;
      if (Array.isArray(uris) && !uris.includes(this.redirectUrl)) return undefined;
    }
    if (stored === undefined && !this.#interactive) throw this.#needsLogin();
    return stored;
  }

  async saveClientInformation(client: OAuthClientInformationMixed): Promise<void> {
    await this.#save({ client: client as Record<string, unknown> });
  }

  async tokens(): Promise<OAuthTokens | undefined> {
    return (await this.#load()).tokens as OAuthTokens | undefined;
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    await this.#save({ tokens: tokens as Record<string, unknown>, savedAt: Date.now() });
  }

  redirectToAuthorization(authorizationUrl: URL): void {
    const authorize = this.#options.authorize;
    if (authorize === undefined) throw this.#needsLogin();
    const pending = authorize(authorizationUrl, this.#server);
    pending.catch(() => undefined); // awaited by takeCode(); never unhandled
    this.#pendingCode = pending;
  }

  saveCodeVerifier(codeVerifier: string): void {
    this.#verifier = codeVerifier;
  }

  codeVerifier(): string {
    if (this.#verifier === undefined) throw new Error("no PKCE code verifier was saved for this authorization");
    return this.#verifier;
  }

  async invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): Promise<void> {
    if (scope === "verifier" || scope === "all") this.#verifier = undefined;
    const record = await this.#load();
    const next: Record<string, unknown> = { ...record };
    if (scope === "all" || scope === "client") delete next.client;
    if (scope === "all" || scope === "tokens") delete next.tokens;
    if (scope === "all" || scope === "discovery") this.#discovery = undefined;
    this.#record = next as unknown as McpAuthRecord;
    await this.#options.store.save(this.#record);
  }

  // Discovery is kept for this process only: an unattended connection that finds it needs a
  // login writes nothing, and a later login discovers afresh.
  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.#discovery = state;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.#discovery;
  }

  /** The authorization code of the authorization just started (`authorize`'s answer), once; else undefined. */
  takeCode(): Promise<string> | undefined {
    const pending = this.#pendingCode;
    this.#pendingCode = undefined;
    return pending;
  }

  get #interactive(): boolean {
    return this.#options.authorize !== undefined;
  }

  #needsLogin(): McpError {
    return new McpError(
      "unauthorized",
      `${this.#describe} ${authFailureText("unauthorized", undefined, this.#server)}`,
      {
        server: this.#server,
      },
    );
  }

  async #load(): Promise<McpAuthRecord> {
    if (this.#record !== undefined) return this.#record;
    this.#loading ??= this.#options.store.load(this.#url).then((found) => {
      this.#record ??= found ?? { url: this.#url };
      return this.#record;
    });
    return this.#loading;
  }

  async #save(change: Partial<McpAuthRecord>): Promise<void> {
    this.#record = { ...(await this.#load()), ...change, url: this.#url };
    await this.#options.store.save(this.#record);
  }
}
