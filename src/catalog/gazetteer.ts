// A bundled gazetteer of datacenter cities: maps a location as providers write it ("FRA", "Frankfurt am Main",
// "de-fra-1", "Falkenstein (FSN1)", "Germany") to a city and an ISO 3166-1 country. Pure; a location it does not
// know is left as sent.
import { keptAnswers } from './kept.js';

/** city | ISO country | airport-style codes | other names (local names, spellings, districts that mean the city) */
const CITIES = `
Frankfurt|DE|FRA|Frankfurt am Main,Frankfurt/Main,Frankfurt a.M.,Frankfurt Main
Berlin|DE|BER,TXL|
Munich|DE|MUC|München,Muenchen
Hamburg|DE|HAM|
Düsseldorf|DE|DUS|Dusseldorf,Duesseldorf
Cologne|DE|CGN|Köln,Koeln
Nuremberg|DE|NUE|Nürnberg,Nuernberg
Falkenstein|DE|FSN|
Stuttgart|DE|STR|
Karlsruhe|DE|FKB|
Gunzenhausen|DE||
Limburg|DE||
Leipzig|DE|LEJ|
Hanover|DE|HAJ|Hannover
Amsterdam|NL|AMS|
Rotterdam|NL|RTM|
The Hague|NL||Den Haag
Haarlem|NL||
Eindhoven|NL|EIN|
Groningen|NL|GRQ|
Naaldwijk|NL||
London|GB|LHR,LON,LGW,LCY|Slough,Docklands,Greater London
Manchester|GB|MAN|
Edinburgh|GB|EDI|
Glasgow|GB|GLA|
Birmingham|GB|BHX|
Leeds|GB|LBA|
Coventry|GB||
Maidenhead|GB||
Paris|FR|CDG,PAR,ORY|Île-de-France,Ile de France
Marseille|FR|MRS|
Roubaix|FR||
Gravelines|FR||
Strasbourg|FR|SXB|
Lyon|FR|LYS|
Lille|FR|LIL|
Bordeaux|FR|BOD|
Toulouse|FR|TLS|
Nice|FR|NCE|
Brussels|BE|BRU|Bruxelles,Brussel
Antwerp|BE|ANR|Antwerpen
Luxembourg|LU|LUX|Luxemburg
Zurich|CH|ZRH|Zürich,Zuerich
Geneva|CH|GVA|Genève,Geneve,Genf
Basel|CH|BSL|
Lugano|CH||
Vienna|AT|VIE|Wien
Salzburg|AT|SZG|
Graz|AT|GRZ|
Prague|CZ|PRG|Praha,Prag
Brno|CZ|BRQ|
Warsaw|PL|WAW|Warszawa,Warschau
Krakow|PL|KRK|Kraków,Cracow
Gdansk|PL|GDN|Gdańsk
Poznan|PL|POZ|Poznań
Wroclaw|PL|WRO|Wrocław
Budapest|HU|BUD|
Bratislava|SK|BTS|
Ljubljana|SI|LJU|
Zagreb|HR|ZAG|
Belgrade|RS|BEG|Beograd
Bucharest|RO|OTP,BUH|București,Bucuresti
Sofia|BG|SOF|
Athens|GR|ATH|Athína
Thessaloniki|GR|SKG|
Istanbul|TR|IST|İstanbul
Ankara|TR|ESB|
Izmir|TR|ADB|
Kyiv|UA|KBP,IEV|Kiev,Київ
Kharkiv|UA|HRK|
Odesa|UA|ODS|Odessa
Chisinau|MD|KIV|Chișinău
Minsk|BY|MSQ|
Vilnius|LT|VNO|
Kaunas|LT|KUN|
Riga|LV|RIX|
Tallinn|EE|TLL|
Helsinki|FI|HEL|Helsingfors
Tampere|FI|TMP|
Espoo|FI||
Stockholm|SE|ARN,STO|
Gothenburg|SE|GOT|Göteborg,Goteborg
Malmo|SE|MMX|Malmö
Oslo|NO|OSL|
Bergen|NO|BGO|
Copenhagen|DK|CPH|København,Kobenhavn
Aarhus|DK|AAR|Århus
Reykjavik|IS|KEF,RKV|Reykjavík
Dublin|IE|DUB|Baile Átha Cliath
Cork|IE|ORK|
Madrid|ES|MAD|
Barcelona|ES|BCN|
Valencia|ES|VLC|
Lisbon|PT|LIS|Lisboa
Porto|PT|OPO|Oporto
Milan|IT|MXP,LIN,MIL|Milano,Mailand
Rome|IT|FCO,ROM|Roma
Turin|IT|TRN|Torino
Arezzo|IT||
Bergamo|IT|BGY|
Palermo|IT|PMO|
Valletta|MT|MLA|Malta
Nicosia|CY||Limassol
Moscow|RU|SVO,DME,MOW|Moskva,Москва
Saint Petersburg|RU|LED|St. Petersburg,St Petersburg,Sankt-Peterburg
Novosibirsk|RU|OVB|
Yekaterinburg|RU|SVX|
Tbilisi|GE|TBS|
Yerevan|AM|EVN|
Baku|AZ|GYD|
Almaty|KZ|ALA|
Tashkent|UZ|TAS|
New York|US|NYC,JFK,EWR,LGA|New York City,Manhattan,NY,NYC Metro
Newark|US||
Secaucus|US||
Piscataway|US||
Ashburn|US|IAD|Northern Virginia,N. Virginia,Virginia,Sterling,Reston,US East
Washington|US|DCA|Washington DC,Washington D.C.
Boston|US|BOS|
Philadelphia|US|PHL|
Pittsburgh|US|PIT|
Buffalo|US|BUF|
Atlanta|US|ATL|
Miami|US|MIA|
Tampa|US|TPA|
Orlando|US|MCO|
Jacksonville|US|JAX|
Charlotte|US|CLT|
Raleigh|US|RDU|
Nashville|US|BNA|
Chicago|US|ORD,CHI,MDW|
Detroit|US|DTW|
Columbus|US|CMH|
Cleveland|US|CLE|
Cincinnati|US|CVG|
Indianapolis|US|IND|
Minneapolis|US|MSP|
Kansas City|US|MCI|
St. Louis|US|STL|Saint Louis,St Louis
Omaha|US|OMA|
Des Moines|US|DSM|
Dallas|US|DFW,DAL|Dallas-Fort Worth,Dallas Fort Worth
Houston|US|IAH,HOU|
Austin|US|AUS|
San Antonio|US|SAT|
Denver|US|DEN|
Salt Lake City|US|SLC|
Phoenix|US|PHX|
Las Vegas|US|LAS|
Los Angeles|US|LAX|LA
San Diego|US|SAN|
San Jose|US|SJC|Silicon Valley,Santa Clara
San Francisco|US|SFO|Bay Area
Sacramento|US|SMF|
Portland|US|PDX|
Seattle|US|SEA|
Hillsboro|US||
Boardman|US||Oregon,US West
Council Bluffs|US||Iowa
Kent|US||
Honolulu|US|HNL|
Anchorage|US|ANC|
Toronto|CA|YYZ,YTO|
Montreal|CA|YUL|Montréal,Beauharnois
Vancouver|CA|YVR|
Calgary|CA|YYC|
Ottawa|CA|YOW|
Quebec City|CA|YQB|Québec
Winnipeg|CA|YWG|
Mexico City|MX|MEX|Ciudad de México,Ciudad de Mexico
Queretaro|MX|QRO|Querétaro
Monterrey|MX|MTY|
Guadalajara|MX|GDL|
Panama City|PA|PTY|
San Jose (Costa Rica)|CR|SJO|
Bogota|CO|BOG|Bogotá
Medellin|CO|MDE|Medellín
Lima|PE|LIM|
Santiago|CL|SCL|Santiago de Chile
Buenos Aires|AR|EZE,BUE|
Sao Paulo|BR|GRU,SAO|São Paulo
Rio de Janeiro|BR|GIG|Rio
Fortaleza|BR|FOR|
Porto Alegre|BR|POA|
Montevideo|UY|MVD|
Quito|EC|UIO|
Caracas|VE|CCS|
Tokyo|JP|NRT,HND,TYO|東京
Osaka|JP|KIX,ITM,OSA|大阪
Seoul|KR|ICN,SEL|서울,Chuncheon
Busan|KR|PUS|
Hong Kong|HK|HKG|HK
Taipei|TW|TPE|
Singapore|SG|SIN|SG
Kuala Lumpur|MY|KUL|
Johor Bahru|MY|JHB|
Jakarta|ID|CGK|
Bangkok|TH|BKK|
Manila|PH|MNL|
Ho Chi Minh City|VN|SGN|Saigon
Hanoi|VN|HAN|
Mumbai|IN|BOM|Bombay
Delhi|IN|DEL|New Delhi,NCR
Bangalore|IN|BLR|Bengaluru
Chennai|IN|MAA|Madras
Hyderabad|IN|HYD|
Pune|IN|PNQ|
Kolkata|IN|CCU|Calcutta
Noida|IN||
Karachi|PK|KHI|
Lahore|PK|LHE|
Dhaka|BD|DAC|
Colombo|LK|CMB|
Kathmandu|NP|KTM|
Beijing|CN|PEK,PKX,BJS|北京
Shanghai|CN|PVG,SHA|上海
Shenzhen|CN|SZX|
Guangzhou|CN|CAN|
Hangzhou|CN|HGH|
Chengdu|CN|CTU|
Dubai|AE|DXB|
Abu Dhabi|AE|AUH|
Fujairah|AE|FJR|
Doha|QA|DOH|
Riyadh|SA|RUH|
Jeddah|SA|JED|
Dammam|SA|DMM|
Kuwait City|KW|KWI|
Manama|BH|BAH|Bahrain
Muscat|OM|MCT|
Tel Aviv|IL|TLV|Tel Aviv-Yafo
Jerusalem|IL|JRS|
Amman|JO|AMM|
Beirut|LB|BEY|
Cairo|EG|CAI|
Johannesburg|ZA|JNB|Joburg
Cape Town|ZA|CPT|
Durban|ZA|DUR|
Lagos|NG|LOS|
Nairobi|KE|NBO|
Casablanca|MA|CMN|
Tunis|TN|TUN|
Accra|GH|ACC|
Sydney|AU|SYD|
Melbourne|AU|MEL|
Brisbane|AU|BNE|
Perth|AU|PER|
Adelaide|AU|ADL|
Canberra|AU|CBR|
Auckland|NZ|AKL|
Wellington|NZ|WLG|
`;

/** Country names and ISO codes a location may give instead of a city. */
const COUNTRIES = `
DE|Germany,Deutschland
NL|Netherlands,The Netherlands,Holland,Nederland
GB|United Kingdom,UK,Great Britain,England,Scotland
FR|France
BE|Belgium
LU|Luxembourg
CH|Switzerland,Schweiz,Suisse
AT|Austria,Österreich,Oesterreich
CZ|Czech Republic,Czechia
PL|Poland,Polska
HU|Hungary
SK|Slovakia
SI|Slovenia
HR|Croatia
RS|Serbia
RO|Romania
BG|Bulgaria
GR|Greece
TR|Turkey,Türkiye
UA|Ukraine
MD|Moldova
LT|Lithuania
LV|Latvia
EE|Estonia
FI|Finland,Suomi
SE|Sweden,Sverige
NO|Norway,Norge
DK|Denmark,Danmark
IS|Iceland
IE|Ireland
ES|Spain,España
PT|Portugal
IT|Italy,Italia
MT|Malta
CY|Cyprus
RU|Russia,Russian Federation
US|United States,USA,United States of America,America
CA|Canada
MX|Mexico
BR|Brazil,Brasil
AR|Argentina
CL|Chile
CO|Colombia
PE|Peru
JP|Japan
KR|South Korea,Korea
HK|Hong Kong
TW|Taiwan
SG|Singapore
MY|Malaysia
ID|Indonesia
TH|Thailand
PH|Philippines
VN|Vietnam,Viet Nam
IN|India
PK|Pakistan
CN|China
AE|United Arab Emirates,UAE
SA|Saudi Arabia
QA|Qatar
IL|Israel
EG|Egypt
ZA|South Africa
NG|Nigeria
KE|Kenya
AU|Australia
NZ|New Zealand
`;

export interface Place {
  /** the city's name as the directory shows it; null when only a country is known */
  city: string | null;
  /** ISO 3166-1 alpha-2 */
  country: string;
  /** a stable key of the city ("frankfurt-de") or of the country alone ("de") */
  key: string;
}

/**
 * A location folded for comparison: lower case, accents and punctuation gone, words joined by one space
 * ("Frankfurt a.M." → "frankfurt a m", "São-Paulo" → "sao paulo").
 */
export function foldWords(text: string): string {
  // Plain ASCII (most locations and features) has no accents to take off.
  const plain = /^[\x20-\x7e]*$/.test(text) ? text : text.normalize('NFKD').replace(/\p{M}/gu, '');
  return plain
    .toLowerCase()
    .replace(/ß/g, 'ss')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** A value folded to compare ignoring case and spacing: "DDoS-Protection" and "ddos protection" both → "ddosprotection". */
export function foldKey(text: string): string {
  return foldWords(text).replace(/ /g, '');
}

/** Codes that are also words ("per", "led", "sea"): they name their city only as the whole location. */
const CODES_ONLY_ALONE = new Set([
  'per',
  'led',
  'sea',
  'mad',
  'den',
  'ham',
  'los',
  'san',
  'man',
  'for',
  'can',
  'aus',
  'bus',
  'ind',
  'nyc',
  'la',
  'rio',
  'ny',
  'hk',
  'sg',
  'oma',
  'lim',
  'sat',
  'acc',
  'tun',
  'mel',
  'adl',
  'sin',
  'bah',
  'kent',
]);

const NAMES = new Map<string, Place>();
const ALONE = new Map<string, Place>();
/** the longest name, in words: the window scanned for names inside a longer location */
let LONGEST = 1;

function add(map: Map<string, Place>, name: string, place: Place): void {
  const folded = foldWords(name);
  if (!folded || map.has(folded)) return;
  map.set(folded, place);
  LONGEST = Math.max(LONGEST, folded.split(' ').length);
}

for (const line of CITIES.trim().split('\n')) {
  const [city, country, codes, names] = line.split('|') as [string, string, string, string];
  const display = city.replace(/ \(.*\)$/, '');
  const place: Place = { city: display, country, key: `${foldKey(display)}-${country.toLowerCase()}` };
  add(NAMES, city, place);
  if (display !== city) add(ALONE, display, place);
  for (const code of codes.split(',').filter(Boolean)) {
    const folded = foldWords(code);
    add(CODES_ONLY_ALONE.has(folded) ? ALONE : NAMES, code, place);
  }
  for (const name of names.split(',').filter(Boolean)) {
    const folded = foldWords(name);
    add(CODES_ONLY_ALONE.has(folded) || folded.length <= 2 ? ALONE : NAMES, name, place);
  }
}
const COUNTRY_NAMES = new Map<string, Place>();
const COUNTRY_CODES = new Map<string, Place>();
for (const line of COUNTRIES.trim().split('\n')) {
  const [country, names] = line.split('|') as [string, string];
  const place: Place = { city: null, country, key: country.toLowerCase() };
  COUNTRY_CODES.set(country.toLowerCase(), place);
  for (const name of names.split(',')) COUNTRY_NAMES.set(foldWords(name), place);
}

/** How many cities the gazetteer knows. */
export const GAZETTEER_SIZE = CITIES.trim().split('\n').length;

/**
 * The city (or, failing that, the country) a location names, or null. The whole location is tried first, then the
 * longest run of its words that names a city ("Frankfurt, Germany", "EU Central (Frankfurt am Main)", "de-fra-1",
 * "FSN1-DC14"), then a country name or code among its words.
 */
export function placeOf(location: string): Place | null {
  return keptPlaces(location);
}

/** Locations repeat across a catalogue ("Frankfurt" on every plan): each is read once, up to 10 000 kept. */
const keptPlaces = keptAnswers(10_000, readPlace);

function readPlace(location: string): Place | null {
  const folded = foldWords(location);
  if (!folded) return null;
  const whole = NAMES.get(folded) ?? ALONE.get(folded) ?? COUNTRY_NAMES.get(folded);
  if (whole) return whole;
  // "fra1" → "fra 1", so that a code with a number reads as the code.
  const words = folded
    .replace(/([a-z])(\d)/g, '$1 $2')
    .replace(/(\d)([a-z])/g, '$1 $2')
    .split(' ');
  const again = words.join(' ');
  if (again !== folded) {
    const spaced = NAMES.get(again) ?? ALONE.get(words.filter((word) => !/^\d+$/.test(word)).join(' '));
    if (spaced) return spaced;
  }
  for (let length = Math.min(LONGEST, words.length); length >= 1; length--) {
    for (let start = 0; start + length <= words.length; start++) {
      const found = NAMES.get(words.slice(start, start + length).join(' '));
      if (found) return found;
    }
  }
  for (let length = Math.min(4, words.length); length >= 1; length--) {
    for (let start = 0; start + length <= words.length; start++) {
      const found = COUNTRY_NAMES.get(words.slice(start, start + length).join(' '));
      if (found) return found;
    }
  }
  // A country code only as a word of its own beside others ("DE", "de-fra" was a city above).
  for (const word of words) {
    if (word.length === 2 && words.length > 1) {
      const found = COUNTRY_CODES.get(word);
      if (found) return found;
    }
  }
  return COUNTRY_CODES.get(folded) ?? null;
}

/** Two-letter country codes that are also common words (or a unit): typed alone, they are read as the word. */
const CODES_THAT_ARE_WORDS = new Set(['at', 'be', 'gb', 'id', 'in', 'is', 'it', 'my', 'no']);

/** The most words a name `placeNamed` knows has. */
export const PLACE_NAME_WORDS = Math.max(LONGEST, ...[...COUNTRY_NAMES.keys()].map((name) => name.split(' ').length));

/**
 * The place a few words typed into a search name as a whole: a city's name, code or other name ("Frankfurt am
 * Main", "FRA", "München"), or a country's name or two-letter code ("Deutschland", "UK", "DE"). Codes that are also
 * words name nothing here ("per", "man", "it"): inside a search they are far more often the word.
 */
export function placeNamed(words: string): Place | null {
  const folded = foldWords(words);
  return (
    NAMES.get(folded) ??
    COUNTRY_NAMES.get(folded) ??
    (CODES_THAT_ARE_WORDS.has(folded) ? null : (COUNTRY_CODES.get(folded) ?? null))
  );
}

/** Whether a text is a known country: "DE", "de", "Germany" → "DE". */
export function countryCode(text: string): string | null {
  const folded = foldWords(text);
  return (COUNTRY_CODES.get(folded) ?? COUNTRY_NAMES.get(folded))?.country ?? null;
}

/** Country names for the pages: the first name of each code. */
export const COUNTRY_LABELS: ReadonlyMap<string, string> = new Map(
  COUNTRIES.trim()
    .split('\n')
    .map((line) => {
      const [code, names] = line.split('|') as [string, string];
      return [code, names.split(',')[0]!];
    }),
);
