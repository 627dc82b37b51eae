// Lab: idempotens
//
// Den samme jobben, «belast faktura 42», når fram til tre arbeidere samtidig, og ingen lås
// holder dem fra hverandre. Skriv `chargeOnce` slik at fakturaen belastes nøyaktig én gang,
// uansett hva som skjer: en arbeider kan stå stille i opptil 1,5 s, eller krasje og
// begynne på jobben igjen.

/**
 * Belaster fakturaen `invoiceId` gjennom `provider`, med mindre den alt er belastet.
 * Svarer 'charged' (dette kallet belastet den), 'done' (den ble belastet før), eller
 * 'busy' (noen belaster den akkurat nå; den som kaller, spør igjen litt senere).
 */
export async function chargeOnce(redis, provider, invoiceId) {
  const key = `idem:charge:${invoiceId}`;

  // TODO 1: denne «sjekk, så handle» lar to arbeidere begge se at det ikke finnes noe, og
  //   begge belaste. Gjør i stedet krav på operasjonen atomisk, som under arbeid og med utløp:
  //     `await redis.set(key, 'in-progress', { NX: true, PX: 1000 })` gir 'OK' eller null
  //   Blir kravet avvist, les nøkkelen: 'done' gir 'done'; ellers 'busy'.
  if ((await redis.get(key)) === 'done') return 'done';

  // TODO 2: gi betalingstjenesten den samme nøkkelen, så et nytt forsøk etter et krasj
  //   (eller etter en pause forbi kravets utløp) ikke kan belaste en gang til:
  //     `provider.write('charge', invoiceId, { idempotencyKey: key })`
  const reply = await provider.write('charge', invoiceId);

  // TODO 3: merk nøkkelen som ferdig med en vanlig SET (uten utløp), og svar så.
  await redis.set(key, 'done');
  return reply.accepted ? 'charged' : 'done';
}
