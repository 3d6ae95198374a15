// Package fixgw is `ste fixgw` (docs/spec/adapters.md §4): a FIX 4.4
// acceptor on quickfixgo for investment managers and brokers. It turns
// their TradeCaptureReports (AE), AllocationInstructions (J), Confirmations
// (AK) and ConfirmationAcks (AU) into STE messages signed as the delegated
// signer (adapters.Signer), published at the ack point of §4.4
// (adapters.Publisher), and STE's outputs back into P, AR, AU, AK and j on
// the participant's session.
package fixgw
