"""Real passkey ceremonies in headless Chromium against a running gateway, for GatewayHTTPTests.

Opens the gateway's origin (http://localhost:PORT: browsers refuse passkeys for IP addresses), gives the page a
virtual platform authenticator through the DevTools Protocol (WebAuthn.addVirtualAuthenticator: CTAP2, resident
keys, user verification), then, in the page, as the web app will: signs up to a session cookie, registers a passkey
(navigator.credentials.create with the gateway's options), signs out, signs in with the passkey alone
(navigator.credentials.get) to a new cookie, and lists the passkeys with it. Prints one JSON object of what each
step answered, and the authenticator's credentials as Chromium holds them.

Usage: python3 passkey_browser.py http://localhost:PORT ALGORITHM   (ALGORITHM: -7 for ES256, -8 for EdDSA)
"""
import json
import sys

from playwright.sync_api import sync_playwright

CEREMONIES = """
async ([algorithm]) => {
  const post = async (path, body) => {
    const response = await fetch(path, {method: "POST", headers: {"Content-Type": "application/json"},
                                        body: JSON.stringify(body)});
    return {status: response.status, body: await response.json()};
  };
  const steps = {};
  steps.signup = await post("/v1/accounts", {name: "browser-person", password: "basil needs water", cookie: true});
  const options = await post("/v1/passkeys:beginRegistration", {});
  steps.options = options;
  const creation = options.body;
  creation.pubKeyCredParams = creation.pubKeyCredParams.filter(p => p.alg === algorithm);
  const made = await navigator.credentials.create({publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(creation)});
  steps.register = await post("/v1/passkeys", {credential: made.toJSON(), name: "Virtual"});
  const signOut = await fetch("/v1/sessions/current", {method: "DELETE"});
  steps.signOut = signOut.status;
  steps.afterSignOut = (await fetch("/v1/passkeys")).status;
  const request = await post("/v1/sessions:beginPasskey", {});
  const answer = await navigator.credentials.get({publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(request.body)});
  steps.signIn = await post("/v1/sessions:passkey", {credential: answer.toJSON(), cookie: true});
  const listed = await fetch("/v1/passkeys");
  steps.listed = {status: listed.status, body: await listed.json()};
  return steps;
}
"""


def main():
    origin, algorithm = sys.argv[1], int(sys.argv[2])
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        page = browser.new_page()
        page.goto(origin + "/healthz")
        devtools = page.context.new_cdp_session(page)
        devtools.send("WebAuthn.enable")
        authenticator = devtools.send("WebAuthn.addVirtualAuthenticator", {"options": {
            "protocol": "ctap2", "transport": "internal", "hasResidentKey": True, "hasUserVerification": True,
            "isUserVerified": True, "automaticPresenceSimulation": True}})["authenticatorId"]
        steps = page.evaluate(CEREMONIES, [algorithm])
        credentials = devtools.send("WebAuthn.getCredentials", {"authenticatorId": authenticator})["credentials"]
        steps["authenticator"] = [{"credentialId": c["credentialId"], "signCount": c["signCount"],
                                   "isResidentCredential": c["isResidentCredential"]} for c in credentials]
        browser.close()
    print(json.dumps(steps))


if __name__ == "__main__":
    main()
