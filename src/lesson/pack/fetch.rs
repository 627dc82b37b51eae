//! What the page says when a pack's address cannot be fetched (`ui::pack_loader`).

/// Why `url` could not be fetched from the page at `page`: a browser gives no reason, but
/// a pack on another site is most often refused for want of a CORS header.
pub fn unfetchable(url: &str, page: &str) -> String {
    let origin = |u: &str| {
        let (scheme, rest) = u.split_once("://")?;
        Some(format!("{scheme}://{}", rest.split(['/', '?', '#']).next()?))
    };
    match (origin(url), origin(page)) {
        (Some(there), Some(here)) if there != here => format!(
            "{url}: could not be fetched. It is on another site ({there}), so its server must \
             send the header Access-Control-Allow-Origin (CORS) for this page to read it: see \
             docs/authoring.md, \"Loading a pack in the app\". Or the address is wrong, or the \
             server is down."
        ),
        _ => format!("{url}: could not be fetched: the server did not answer (is the address right?)"),
    }
}

#[cfg(test)]
mod tests {
    use super::unfetchable;

    #[test]
    fn a_pack_on_another_site_that_cannot_be_fetched_names_cors_and_the_docs() {
        let page = "https://lockstep.example/?pack=x#/a/1";
        let there = unfetchable("https://course.example/packs/leases/pack.toml", page);
        assert!(there.contains("another site (https://course.example)"), "{there}");
        assert!(there.contains("Access-Control-Allow-Origin"), "{there}");
        assert!(there.contains("docs/authoring.md"), "{there}");
        // Beside the app, CORS is not the reason.
        let here = unfetchable("packs/leases.toml", page);
        assert!(!here.contains("CORS"), "{here}");
        assert!(here.contains("the server did not answer"), "{here}");
        let same = unfetchable("https://lockstep.example/packs/a.toml", page);
        assert!(!same.contains("CORS"), "{same}");
    }
}
