import SafeGateCLI

await SafeGateMain.run()
