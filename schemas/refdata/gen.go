package refdata

import (
	"crypto/ed25519"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/ste-utility/ste/schemas/date"
)

// Market is one securities market of the generated data: its country (ISIN
// prefix and holiday calendar), currency, exchange MIC (the NOE Market field)
// and its CSD (the PSET of its trades).
type Market struct {
	Country, Currency, MIC string
	CSD, CSDName           string
}

var markets = []Market{
	{"SG", "SGD", "XSES", "CDPLSGSGXXX", "The Central Depository (Pte) Limited"},
	{"HK", "HKD", "XHKG", "HKSCHKHHXXX", "Hong Kong Securities Clearing Company Limited"},
	{"JP", "JPY", "XTKS", "JJSDJPJTXXX", "Japan Securities Depository Center, Incorporated"},
	{"US", "USD", "XNYS", "DTCYUS33XXX", "The Depository Trust Company"},
	{"GB", "GBP", "XLON", "CRSTGB22XXX", "Euroclear UK & International Limited"},
	{"DE", "EUR", "XETR", "DAKVDEFFXXX", "Clearstream Banking AG"},
	{"FR", "EUR", "XPAR", "SICVFRPPXXX", "Euroclear France SA"},
	{"AU", "AUD", "XASX", "XASXAU2SXXX", "ASX Settlement Pty Limited"},
}

// Markets lists the markets the generator covers, so that a trade generator
// can pick a security's MIC and PSET consistently with this data.
func Markets() []Market { return append([]Market(nil), markets...) }

// MarketOf finds the market of a country.
func MarketOf(country string) (Market, bool) {
	for _, m := range markets {
		if m.Country == country {
			return m, true
		}
	}
	return Market{}, false
}

// Defaults of the generator. DefaultSeed is the seed of the committed set.
const (
	DefaultSeed         = 1
	DefaultSecurities   = 5000
	DefaultParticipants = 300
	DefaultUtilityBIC   = "STEUTLSGXXX"

	// The delegated signers of the utility's standard-format adapters
	// (adapters.md §2, messages.md §8): role SIGNER, demo keys, listed in
	// the signers of every generated broker, investment manager and
	// custodian.
	FIXSignerBIC = "STEUTLSGFIX" // ste fixgw
	ISOSignerBIC = "STEUTLSGISO" // ste iso20022

	// Below these the generated set could not hold the fixed rows (real
	// securities, one CSD per market) plus active and non-active entities of
	// every kind that tests rely on, so smaller requests are raised to them.
	MinSecurities   = 64
	MinParticipants = 32
)

// GenOptions selects a generated set; zero counts and an empty UtilityBIC
// mean the defaults. The same options always give the same set.
type GenOptions struct {
	Seed         int64
	Securities   int // securities, the real anchor securities included
	Participants int // participants besides the utility's own row
	UtilityBIC   string
	// Affirmation selects affirmation.csv's rows: none (the default, the
	// contract's: header only, every InvMgr MANUAL) or mixed (MixAffirmation).
	Affirmation AffirmationChoice
}

// DefaultGenOptions are the options of the committed default set.
func DefaultGenOptions() GenOptions {
	return GenOptions{Seed: DefaultSeed, Securities: DefaultSecurities, Participants: DefaultParticipants, UtilityBIC: DefaultUtilityBIC}
}

func (o GenOptions) normalised() GenOptions {
	if o.Securities <= 0 {
		o.Securities = DefaultSecurities
	}
	o.Securities = max(o.Securities, MinSecurities)
	if o.Participants <= 0 {
		o.Participants = DefaultParticipants
	}
	o.Participants = max(o.Participants, MinParticipants)
	if o.UtilityBIC == "" {
		o.UtilityBIC = DefaultUtilityBIC
	}
	return o
}

// rng draws from a PCG seeded by the options. Only PCG's Uint64 is used, with
// a fixed reduction, because that sequence is specified exactly while the
// higher-level helpers of math/rand/v2 could change between Go releases and
// break the committed default set. Securities and participants use separate
// streams so that changing one count does not reshuffle the other table.
type rng struct{ p *rand.PCG }

func newRNG(seed int64, stream uint64) *rng {
	return &rng{rand.NewPCG(uint64(seed), 0x5354455f52454644^stream)} // "STE_REFD"
}

// intn is uniform enough on [0,n) for test data (Lemire's multiply-shift
// without the rejection step; the bias is below 2^-50 for our n).
func (r *rng) intn(n int) int {
	hi, _ := bits.Mul64(r.p.Uint64(), uint64(n))
	return int(hi)
}

func (r *rng) pick(s []string) string { return s[r.intn(len(s))] }

func (r *rng) chars(alphabet string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.intn(len(alphabet))]
	}
	return string(b)
}

// sample returns k distinct indices of [0,n) in increasing order.
func (r *rng) sample(n, k int) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	k = min(k, n)
	for i := 0; i < k; i++ {
		j := i + r.intn(n-i)
		idx[i], idx[j] = idx[j], idx[i]
	}
	out := idx[:k]
	slices.Sort(out)
	return out
}

const (
	digits  = "0123456789"
	letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	alnum   = digits + letters
)

// AdapterSigners are the adapters' signer BICs, in the order generated
// signers columns list them.
func AdapterSigners() []string { return []string{FIXSignerBIC, ISOSignerBIC} }

// Generate builds a realistic reference data set: all ISO currencies and
// countries, securities of eight markets with valid ISINs (a few real ones
// first, so demos and tests can use familiar instruments), participants with
// demo keys in every role including some not ACTIVE for negative tests, the
// utility's own row, the adapters' signer rows (every broker, investment
// manager and custodian lists both in its signers), an empty
// affirmation.csv (every InvMgr MANUAL; with Affirmation mixed, a row for
// each investment manager), and the real 2025–2027 holiday
// calendars of the markets.
func Generate(opts GenOptions) *Set {
	o := opts.normalised()
	s := NewSet()
	for _, c := range isoCurrencies {
		s.PutCurrency(c)
	}
	for _, c := range isoCountries {
		s.PutCountry(c)
	}
	for country, days := range marketHolidays {
		for _, d := range days {
			s.PutHoliday(country, date.MustParse(d))
		}
	}
	genSecurities(s, newRNG(o.Seed, 1), o.Securities)
	genParticipants(s, newRNG(o.Seed, 2), o.Participants, o.UtilityBIC)
	genTolerances(s)
	putGeneratedCutoffs(s)
	if o.Affirmation == AffirmationMixed {
		MixAffirmation(s)
	}
	return s
}

// anchors are real securities (ISIN check digits verified by the tests).
var anchors = map[string][][2]string{
	"SG": {
		{"SG1L01001701", "DBS Group Holdings Ltd"},
		{"SG1M31001969", "United Overseas Bank Ltd"},
		{"SG1S04926220", "Oversea-Chinese Banking Corp Ltd"},
		{"SG1T75931496", "Singapore Telecommunications Ltd"},
	},
	"HK": {
		{"HK0000069689", "AIA Group Ltd"},
		{"HK0388045442", "Hong Kong Exchanges and Clearing Ltd"},
	},
	"JP": {
		{"JP3633400001", "Toyota Motor Corp"},
		{"JP3435000009", "Sony Group Corp"},
		{"JP3890350006", "Sumitomo Mitsui Financial Group Inc"},
	},
	"US": {
		{"US0378331005", "Apple Inc"},
		{"US5949181045", "Microsoft Corp"},
		{"US0231351067", "Amazon.com Inc"},
		{"US02079K3059", "Alphabet Inc Class A"},
		{"US67066G1040", "NVIDIA Corp"},
		{"US88160R1014", "Tesla Inc"},
		{"US30303M1027", "Meta Platforms Inc Class A"},
	},
	"GB": {
		{"GB0002634946", "BAE Systems plc"},
		{"GB0007980591", "BP plc"},
		{"GB0005405286", "HSBC Holdings plc"},
	},
	"DE": {
		{"DE0007164600", "SAP SE"},
		{"DE0008404005", "Allianz SE"},
		{"DE0007236101", "Siemens AG"},
		{"DE000BASF111", "BASF SE"},
	},
	"FR": {
		{"FR0000120271", "TotalEnergies SE"},
		{"FR0000131104", "BNP Paribas SA"},
		{"FR0000121014", "LVMH Moet Hennessy Louis Vuitton SE"},
		{"FR0000125338", "Capgemini SE"},
	},
	"AU": {
		{"AU000000BHP4", "BHP Group Ltd"},
		{"AU000000CBA7", "Commonwealth Bank of Australia"},
	},
}

// marketWeights split the securities count (percent, in markets order):
// Singapore-heavy, as the utility is, with the big markets well represented.
var marketWeights = []int{18, 14, 16, 22, 9, 7, 7, 7}

// suspendedPermille is the share of SUSPENDED securities per market, rounded,
// at least one per market so every market has a negative case.
const suspendedPermille = 15

func genSecurities(s *Set, r *rng, n int) {
	counts := make([]int, len(markets))
	total := 0
	for i, m := range markets {
		counts[i] = max(n*marketWeights[i]/100, len(anchors[m.Country])+2)
		total += counts[i]
	}
	for i := 0; total < n; i = (i + 1) % len(counts) {
		counts[i]++
		total++
	}
	usedNames := map[string]bool{}
	for i, m := range markets {
		for _, a := range anchors[m.Country] {
			s.PutSecurity(Security{a[0], a[1], m.Currency, m.Country, Active})
			usedNames[a[1]] = true
		}
		var gen []Security
		for len(gen) < counts[i]-len(anchors[m.Country]) {
			isin := ISINWithCheckDigit(isinBody(r, m.Country, 0))
			for try := 1; s.hasSecurity(isin); try++ {
				isin = ISINWithCheckDigit(isinBody(r, m.Country, try))
			}
			x := Security{isin, uniqueName(r, usedNames, func() string { return securityName(r, m.Country) }), m.Currency, m.Country, Active}
			s.PutSecurity(x) // reserve the ISIN now; status is set below
			gen = append(gen, x)
		}
		k := max(1, (len(gen)*suspendedPermille+500)/1000)
		for _, j := range r.sample(len(gen), k) {
			gen[j].Status = Suspended
			s.PutSecurity(gen[j])
		}
	}
}

func (s *Set) hasSecurity(isin string) bool { _, ok := s.securities[isin]; return ok }

// isinBody draws the first 11 characters in the shape of the market's real
// national numbering (CUSIP, SEDOL, WKN, …), so generated ISINs look right to
// people who know them. After many collisions it falls back to a wider form.
func isinBody(r *rng, country string, try int) string {
	if try > 20 {
		return country + r.chars(alnum, 9)
	}
	switch country {
	case "SG": // SG1 + letter + 7 digits
		return "SG1" + r.chars(letters, 1) + r.chars(digits, 7)
	case "HK": // HK + 4-digit stock code + 5 digits
		return "HK" + r.chars(digits, 9)
	case "JP": // JP3 + 5 digits + 000
		return "JP3" + r.chars(digits, 5) + "000"
	case "US": // US + CUSIP (issuer 6, issue 2, check 1)
		issuer := r.chars(digits, 5) + r.chars(alnum, 1)
		issue := r.pick([]string{"10", "10", "10", "20", "30", "40"})
		return "US" + cusip(issuer+issue)
	case "GB": // GB00 + SEDOL (6 + check)
		var body string
		if r.intn(2) == 0 {
			body = r.chars("01234567", 1) + r.chars(digits, 5)
		} else {
			body = "B" + r.chars(digits+"BCDFGHJKLMNPQRSTVWXYZ", 5)
		}
		return "GB00" + sedol(body)
	case "DE": // DE000 + WKN
		if r.intn(3) == 0 {
			return "DE000A" + r.chars(digits+"ABCDEFGHJKLMNPQRSTUVWXYZ", 5)
		}
		return "DE000" + r.chars("5678", 1) + r.chars(digits, 5)
	case "FR": // FR00 + 00/10/11/13 + 5 digits
		return "FR00" + r.pick([]string{"00", "00", "10", "11", "13"}) + r.chars(digits, 5)
	case "AU": // AU000000 + ASX code
		return "AU000000" + r.chars(letters, 3)
	}
	return country + r.chars(alnum, 9)
}

func charValue(c byte) int {
	if c >= '0' && c <= '9' {
		return int(c - '0')
	}
	return int(c-'A') + 10
}

// cusip appends the CUSIP check digit to 8 characters.
func cusip(s string) string {
	sum := 0
	for i := 0; i < 8; i++ {
		v := charValue(s[i])
		if i%2 == 1 {
			v *= 2
		}
		sum += v/10 + v%10
	}
	return s + string(rune('0'+(10-sum%10)%10))
}

// sedol appends the SEDOL check digit to 6 characters.
func sedol(s string) string {
	w := [6]int{1, 3, 1, 7, 3, 9}
	sum := 0
	for i := 0; i < 6; i++ {
		sum += charValue(s[i]) * w[i]
	}
	return s + string(rune('0'+(10-sum%10)%10))
}

func uniqueName(r *rng, used map[string]bool, gen func() string) string {
	for try := 0; ; try++ {
		name := gen()
		if try >= 8 {
			name += " " + strconv.Itoa(try-6) // "… 2", "… 3": like a second fund or series
		}
		if !used[name] {
			used[name] = true
			return name
		}
	}
}

var nameWords = []string{
	"Amber", "Apex", "Arcadia", "Aurora", "Azure", "Banyan", "Beacon", "Bluewater", "Bridgeway", "Cedar",
	"Centurion", "Coral", "Crescent", "Crestview", "Delta", "Eastgate", "Emerald", "Evergreen", "Falcon", "Fortune",
	"Frontier", "Golden", "Granite", "Harbour", "Heritage", "Highland", "Horizon", "Ironbark", "Jade", "Jasmine",
	"Keystone", "Kingsway", "Lakeside", "Laurel", "Lion", "Lotus", "Majestic", "Mangrove", "Maple", "Marina",
	"Meridian", "Monarch", "Northstar", "Nova", "Oakridge", "Oceanic", "Orchid", "Pacific", "Pearl", "Phoenix",
	"Pinnacle", "Pioneer", "Premier", "Quantum", "Radiant", "Redwood", "Regal", "Riverstone", "Sakura", "Sapphire",
	"Silverline", "Sterling", "Straits", "Summit", "Sunrise", "Tanjong", "Teak", "Titan", "Trident", "Unity",
	"Valiant", "Vista", "Westbridge", "Willow", "Zenith",
}

var industries = []string{
	"Agritech", "Airlines", "Aviation", "Bank", "Beverages", "Biotech", "Brewing", "Chemicals", "Construction", "Data",
	"Electronics", "Energy", "Engineering", "Foods", "Gaming", "Healthcare", "Hotels", "Industries", "Infrastructure", "Insurance",
	"Land", "Leisure", "Logistics", "Machinery", "Marine", "Materials", "Media", "Medical", "Metals", "Mining",
	"Motors", "Networks", "Paper", "Pharma", "Power", "Properties", "Rail", "Resources", "Retail", "Robotics",
	"Semiconductor", "Shipping", "Software", "Solar", "Steel", "Systems", "Telecom", "Textiles", "Utilities", "Water",
}

func securityName(r *rng, country string) string {
	a, ind := r.pick(nameWords), r.pick(industries)
	switch country {
	case "SG":
		return a + " " + r.pick([]string{ind + " Ltd", ind + " Holdings Ltd", "REIT", ind + " Trust", "Group Ltd"})
	case "HK":
		return a + " " + r.pick([]string{ind + " Holdings Ltd", ind + " Group Co Ltd", ind + " International Ltd"})
	case "JP":
		return a + " " + r.pick([]string{ind + " Corp", ind + " Co Ltd", "Holdings Inc", ind + " Kogyo Co Ltd"})
	case "US":
		return a + " " + r.pick([]string{ind + " Inc", ind + " Corp", "Bancorp Inc", ind + " Holdings Inc", ind + " Co"})
	case "GB":
		return a + " " + r.pick([]string{ind + " plc", "Group plc", ind + " Holdings plc"})
	case "DE":
		return a + " " + r.pick([]string{ind + " AG", ind + " SE", ind + " Holding AG"})
	case "FR":
		return r.pick([]string{a + " " + ind + " SA", "Groupe " + a + " SA", a + " " + ind + " SE"})
	case "AU":
		return a + " " + r.pick([]string{ind + " Ltd", "Resources Ltd", "Mining Ltd", ind + " Group Ltd"})
	}
	return a + " " + ind + " Ltd"
}

// participantCountries weight where participants are domiciled: mostly the
// markets, Singapore first, plus a tail of other financial centres.
var participantCountries = []struct {
	country string
	weight  int
	locs    []string // BIC location codes seen in that country
}{
	{"SG", 30, []string{"SG", "SX"}},
	{"HK", 12, []string{"HH", "HX", "HK"}},
	{"JP", 10, []string{"JT", "JX"}},
	{"US", 15, []string{"33", "3N", "6S", "44"}},
	{"GB", 10, []string{"2L", "22", "2X"}},
	{"DE", 5, []string{"FF", "MM", "BB"}},
	{"FR", 5, []string{"PP", "PA"}},
	{"AU", 5, []string{"2S", "3M", "2X"}},
	{"CH", 2, []string{"ZZ", "ZH", "GG"}},
	{"LU", 1, []string{"LL", "LX"}},
	{"IE", 1, []string{"2D", "2X"}},
	{"NL", 1, []string{"2A", "2X"}},
	{"CA", 1, []string{"T2", "M2"}},
	{"KR", 1, []string{"SE"}},
	{"MY", 1, []string{"KL", "KX"}},
	{"TH", 1, []string{"BK"}},
	{"IN", 1, []string{"BB", "DD"}},
	{"NZ", 1, []string{"2A", "22"}},
}

var legalForms = map[string][]string{
	"SG": {"Pte Ltd", "Ltd"},
	"HK": {"Limited"},
	"JP": {"Co., Ltd.", "Inc."},
	"US": {"LLC", "Inc."},
	"GB": {"Limited", "plc"},
	"DE": {"AG", "GmbH"},
	"FR": {"SA", "SAS"},
	"AU": {"Pty Ltd", "Limited"},
	"CH": {"AG", "SA"},
	"LU": {"S.A."},
	"IE": {"DAC", "Limited"},
	"NL": {"N.V.", "B.V."},
	"CA": {"Inc."},
}

func participantName(r *rng, roles Role, country string) string {
	a := r.pick(nameWords)
	var kind []string
	switch roles {
	case RoleBroker:
		kind = []string{"Securities", "Capital Markets", "Brokerage", "Equities", "Securities Trading"}
	case RoleInvMgr:
		kind = []string{"Asset Management", "Investment Management", "Fund Management", "Capital Partners", "Investors"}
	case RoleCustodian:
		kind = []string{"Bank", "Trust & Custody", "Custodial Services", "Trust Bank", "Banking Corporation"}
	case RoleBroker | RoleCustodian:
		kind = []string{"Bank", "Banking Group", "Financial Group"}
	case RoleBroker | RoleInvMgr:
		kind = []string{"Securities & Investments", "Investment Bank"}
	default:
		kind = []string{"Trust Company", "Wealth & Custody"}
	}
	forms := legalForms[country]
	if forms == nil {
		forms = []string{"Ltd"}
	}
	return a + " " + r.pick(kind) + " " + r.pick(forms)
}

func genParticipants(s *Set, r *rng, n int, utilityBIC string) {
	used8 := map[string]bool{}
	usedNames := map[string]bool{}
	signers := AdapterSigners()
	put := func(bic, name string, roles Role, country string, st Status) {
		p := Participant{BIC: bic, Name: name, Roles: roles, Country: country, Status: st, Keys: []ed25519.PublicKey{DemoPublicKey(bic)}}
		if roles&(RoleBroker|RoleInvMgr|RoleCustodian) != 0 {
			p.Signers = signers
		}
		s.PutParticipant(p)
		used8[bic[:8]] = true
		usedNames[name] = true
	}
	// The utility is in Singapore whatever its BIC spells: STEUTLSGXXX has
	// "TL" in the country position.
	put(utilityBIC, "STE Trade Matching Utility", RoleUtility, "SG", Active)
	for _, m := range markets {
		put(m.CSD, m.CSDName, RoleCSD, m.Country, Active)
	}

	// Roles of the others: a few universal banks with two roles, custodians,
	// then brokers and investment managers in about equal numbers.
	rest := n - len(markets)
	multi := max(3, rest*5/100)
	cust := rest * 15 / 100
	brokers := (rest - multi - cust) * 47 / 100
	roles := make([]Role, 0, rest)
	twoRoles := []Role{RoleBroker | RoleCustodian, RoleBroker | RoleInvMgr, RoleInvMgr | RoleCustodian}
	for i := 0; i < multi; i++ {
		roles = append(roles, twoRoles[i%len(twoRoles)])
	}
	for i := 0; i < cust; i++ {
		roles = append(roles, RoleCustodian)
	}
	for i := 0; i < brokers; i++ {
		roles = append(roles, RoleBroker)
	}
	for len(roles) < rest {
		roles = append(roles, RoleInvMgr)
	}

	totalWeight := 0
	for _, c := range participantCountries {
		totalWeight += c.weight
	}
	groups := map[Role][]string{}
	for _, role := range roles {
		w := r.intn(totalWeight)
		ci := 0
		for w >= participantCountries[ci].weight {
			w -= participantCountries[ci].weight
			ci++
		}
		pc := participantCountries[ci]
		var bic8 string
		for bic8 == "" || used8[bic8] {
			bic8 = r.chars(letters, 4) + pc.country + r.pick(pc.locs)
		}
		var bic string
		switch x := r.intn(20); {
		case x < 15:
			bic = bic8 + "XXX"
		case x < 18:
			bic = bic8
		default: // a branch code; only the head office is XXX
			bic = bic8 + r.chars("ABCDEFGHJKLMNPQRSTUVW0123456789", 1) + r.chars(alnum, 2)
		}
		name := uniqueName(r, usedNames, func() string { return participantName(r, role, pc.country) })
		put(bic, name, role, pc.country, Active)
		groups[role] = append(groups[role], bic)
	}

	// Known but unusable counterparties for negative tests: about 2 % of each
	// single-role group SUSPENDED and as many INACTIVE, at least one each.
	for _, role := range []Role{RoleBroker, RoleInvMgr, RoleCustodian} {
		g := groups[role]
		k := max(1, len(g)*2/100)
		for i, j := range r.sample(len(g), 2*k) {
			p := s.participants[g[j]]
			p.Status = Suspended
			if i%2 == 1 {
				p.Status = Inactive
			}
			s.PutParticipant(p)
		}
	}

	// The adapters' signers last, drawing nothing: the rows above are the
	// same with or without them (a version 2 set generated again is the
	// same set plus these two rows).
	put(FIXSignerBIC, "STE FIX 4.4 Adapter (delegated signer)", RoleSigner, "SG", Active)
	put(ISOSignerBIC, "STE ISO 20022 Adapter (delegated signer)", RoleSigner, "SG", Active)
}
