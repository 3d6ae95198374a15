package iso20022

// ExampleInstruction is the sese.023 of the worked example of adapters.md
// §5.4 (adapters/iso20022/testdata/iso20022/examples/sese.023-in-SET-NEW.xml,
// byte for byte): posted by AFKZSGSGXXX it becomes the SET
// S1:CUST_2F2026_2F000123. The demo offers it to post.
const ExampleInstruction = `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:sese.023.001.11">
 <SctiesSttlmTxInstr>
  <TxId>CUST/2026/000123</TxId>
  <SttlmTpAndAddtlParams><SctiesMvmntTp>RECE</SctiesMvmntTp><Pmt>APMT</Pmt></SttlmTpAndAddtlParams>
  <TradDtls>
   <TradId>BT-20261127-0001</TradId>
   <TradDt><Dt><Dt>2026-11-27</Dt></Dt></TradDt>
   <SttlmDt><Dt><Dt>2026-11-30</Dt></Dt></SttlmDt>
  </TradDtls>
  <FinInstrmId><ISIN>SG1A01315179</ISIN></FinInstrmId>
  <QtyAndAcctDtls>
   <SttlmQty><Qty><Unit>6000</Unit></Qty></SttlmQty>
   <AcctOwnr><Id><AnyBIC>AQGOSGSG</AnyBIC></Id></AcctOwnr>
   <SfkpgAcct><Id>SAFE-778899</Id></SfkpgAcct>
   <CshAcct><Prtry>CASH-112233</Prtry></CshAcct>
  </QtyAndAcctDtls>
  <SttlmParams><SctiesTxTp><Cd>TRAD</Cd></SctiesTxTp></SttlmParams>
  <DlvrgSttlmPties>
   <Dpstry><Id><AnyBIC>CDPLSGSGXXX</AnyBIC></Id></Dpstry>
   <Pty1><Id><AnyBIC>AMPFSGSGMHX</AnyBIC></Id></Pty1>
  </DlvrgSttlmPties>
  <SttlmAmt><Amt Ccy="SGD">60345.15</Amt><CdtDbtInd>DBIT</CdtDbtInd></SttlmAmt>
  <OthrBizPties>
   <Invstr><Id><PrtryId><Id>ACC1</Id><Issr>AQGOSGSG</Issr></PrtryId></Id></Invstr>
   <Brkr><Id><AnyBIC>AMPFSGSGMHX</AnyBIC></Id></Brkr>
  </OthrBizPties>
 </SctiesSttlmTxInstr>
</Document>
`
