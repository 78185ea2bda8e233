/* SHA-256 for pages without WebCrypto (plain-HTTP LAN): filled by the webverify branch. */
