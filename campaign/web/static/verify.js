/* In-browser chain verification (#verify-panel): filled by the webverify branch. */
