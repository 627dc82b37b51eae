//! "Share / Embed": a link to exactly this view, and a ready `<iframe>` snippet.

use crate::lesson::content::Lang;
use crate::lesson::embed::{EmbedChoice, Show, Theme, CONTROLS};
use crate::lesson::i18n::{k, Key, Texts};
use crate::ui::browser;
use wasm_bindgen::JsCast;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ShareDialogProps {
    pub lang: Lang,
    /// The labs the section shown has: with one, the embed may show only it.
    #[prop_or_default]
    pub labs: Vec<String>,
}

/// Selects the text of the field `id`, for the learner to copy by hand.
fn select_field(id: &str) {
    let el = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id(id));
    if let Some(input) = el
        .clone()
        .and_then(|e| e.dyn_into::<web_sys::HtmlInputElement>().ok())
    {
        let _ = input.focus();
        input.select();
    } else if let Some(area) = el.and_then(|e| e.dyn_into::<web_sys::HtmlTextAreaElement>().ok()) {
        let _ = area.focus();
        area.select();
    }
}

/// Where Tab (or Shift+Tab with `back`) must go instead of leaving `dialog`: the first
/// control after the last one, the last before the first (or before the heading, which
/// takes focus when the dialog opens). `None`: the browser's own move stays inside.
fn wrap_focus(dialog: &web_sys::Element, back: bool) -> Option<web_sys::HtmlElement> {
    let list = dialog
        .query_selector_all("button:not([disabled]), input, textarea, select, a[href], [tabindex=\"0\"]")
        .ok()?;
    let controls: Vec<web_sys::HtmlElement> = (0..list.length())
        .filter_map(|i| list.item(i))
        .filter_map(|n| n.dyn_into::<web_sys::HtmlElement>().ok())
        .collect();
    let (first, last) = (controls.first()?, controls.last()?);
    let active = web_sys::window()?.document()?.active_element();
    let at = |el: &web_sys::HtmlElement| {
        active
            .as_ref()
            .is_some_and(|a| a == el.as_ref() as &web_sys::Element)
    };
    let on_heading = active.as_ref().is_some_and(|a| a.id() == "share-title");
    if back && (at(first) || on_heading) {
        Some(last.clone())
    } else if !back && at(last) {
        Some(first.clone())
    } else {
        None
    }
}

#[function_component(ShareDialog)]
pub fn share_dialog(props: &ShareDialogProps) -> Html {
    let t = Texts::new(props.lang);
    let open = use_state(|| false);
    // What was copied last ("link", "embed"), and whether the browser let it.
    let copied = use_state(|| None::<(&'static str, bool)>);
    let choice = use_reducer(Choice::default);
    // "Only the lab" embeds this section's lab.
    let chosen = EmbedChoice {
        lab: props.labs.first().cloned(),
        ..choice.0.clone()
    };
    let href = if *open {
        web_sys::window()
            .and_then(|w| w.location().href().ok())
            .unwrap_or_default()
    } else {
        String::new()
    };
    let snippet = format!(
        // clipboard-write: the embedded page's Copy buttons work inside the host's page.
        "<iframe src=\"{}\" title=\"{}\" width=\"100%\" height=\"640\" style=\"border:0\" loading=\"lazy\" allow=\"clipboard-write\"></iframe>",
        chosen.url(&href).replace('"', "&quot;"),
        t.t(k::EMBED_TITLE)
    );
    let toggle = {
        let (open, copied) = (open.clone(), copied.clone());
        Callback::from(move |_| {
            copied.set(None);
            open.set(!*open);
        })
    };
    let close = {
        let open = open.clone();
        Callback::from(move |_| {
            open.set(false);
            if let Some(b) = web_sys::window()
                .and_then(|w| w.document())
                .and_then(|d| d.get_element_by_id("share-button"))
                .and_then(|b| b.dyn_into::<web_sys::HtmlElement>().ok())
            {
                let _ = b.focus();
            }
        })
    };
    let dialog = use_node_ref();
    let on_key = {
        let (close, dialog) = (close.clone(), dialog.clone());
        Callback::from(move |e: KeyboardEvent| match e.key().as_str() {
            "Escape" => close.emit(()),
            // The dialog is modal: Tab and Shift+Tab go round inside it.
            "Tab" => {
                if let Some(to) = dialog
                    .cast::<web_sys::Element>()
                    .and_then(|d| wrap_focus(&d, e.shift_key()))
                {
                    e.prevent_default();
                    let _ = to.focus();
                }
            }
            _ => {}
        })
    };
    // Focus the dialog when it opens.
    use_effect_with(*open, |open| {
        if *open {
            if let Some(h) = web_sys::window()
                .and_then(|w| w.document())
                .and_then(|d| d.get_element_by_id("share-title"))
                .and_then(|h| h.dyn_into::<web_sys::HtmlElement>().ok())
            {
                let _ = h.focus();
            }
        }
    });
    // Where the browser refuses (an <iframe> without allow="clipboard-write", a page that
    // is not a secure context), the text is selected in its field for the learner to copy.
    let copy = |what: &'static str, field: &'static str, text: String| {
        let copied = copied.clone();
        Callback::from(move |_| {
            let copied = copied.clone();
            browser::copy_then(text.clone(), move |ok| {
                if !ok {
                    select_field(field);
                }
                copied.set(Some((what, ok)));
            });
        })
    };
    let said = |what: &str| match *copied {
        Some((w, true)) if w == what => t.t(k::COPIED),
        Some((w, false)) if w == what => t.t(k::COPY_BLOCKED_SHORT),
        _ => t.t(k::COPY),
    };
    let label = t.t(k::SHARE);
    let (first, more) = label.split_at(label.find(" / ").unwrap_or(label.len()));
    let (first, more) = (first.to_string(), more.to_string());
    html! {
        <>
            <button id="share-button" type="button" class="share-button" aria-haspopup="dialog" onclick={toggle}>
                // "Share" on a phone, "Share / Embed" where there is room: the bar keeps the app's name whole.
                { first }<span class="share-more">{ more }</span>
            </button>
            if *open {
                <div class="dialog-backdrop" onclick={{ let c = close.clone(); Callback::from(move |_| c.emit(())) }}></div>
                <div class="dialog" role="dialog" aria-modal="true" aria-labelledby="share-title" onkeydown={on_key} ref={dialog}>
                    <h2 id="share-title" tabindex="-1">{ t.t(k::SHARE) }</h2>
                    <label for="share-link">{ t.t(k::SHARE_LINK) }</label>
                    <div class="copy-row">
                        <input id="share-link" type="text" readonly=true value={href.clone()} />
                        <button type="button" onclick={copy("link", "share-link", href.clone())}>{ said("link") }</button>
                    </div>
                    { embed_options(&t, &choice, &copied, !props.labs.is_empty()) }
                    <label for="share-embed">{ t.t(k::SHARE_EMBED) }</label>
                    <div class="copy-row">
                        <textarea id="share-embed" readonly=true rows="3" value={snippet.clone()} />
                        <button type="button" onclick={copy("embed", "share-embed", snippet.clone())}>{ said("embed") }</button>
                    </div>
                    <p class="copy-blocked" role="status">
                        { if matches!(*copied, Some((_, false))) { t.t(k::COPY_BLOCKED) } else { String::new() } }
                    </p>
                    <p class="hint">{ t.t(k::SHARE_HINT) }</p>
                    <button type="button" class="dialog-close" onclick={{ let c = close.clone(); Callback::from(move |_| c.emit(())) }}>{ t.t(k::CLOSE) }</button>
                </div>
            }
        </>
    }
}

/// The embed choices as a reducer: changes made in quick succession (before a redraw)
/// each apply to the latest choice, not to the one the page was drawn with.
#[derive(Clone, Default, PartialEq)]
struct Choice(EmbedChoice);

enum Change {
    Show(Show),
    Theme(Theme),
    Control(&'static str, bool),
}

impl Reducible for Choice {
    type Action = Change;
    fn reduce(self: std::rc::Rc<Self>, change: Change) -> std::rc::Rc<Self> {
        let mut c = self.0.clone();
        match change {
            Change::Show(show) => c.show = show,
            Change::Theme(theme) => c.theme = theme,
            Change::Control(name, true) => {
                c.controls.insert(name.to_string());
            }
            Change::Control(name, false) => {
                c.controls.remove(name);
            }
        }
        std::rc::Rc::new(Choice(c))
    }
}

/// The Share dialog's choices for the embed snippet: what it shows, which scenario
/// controls it offers, its colours. Each change redraws the snippet.
fn embed_options(
    t: &Texts,
    choice: &UseReducerHandle<Choice>,
    copied: &UseStateHandle<Option<(&'static str, bool)>>,
    has_lab: bool,
) -> Html {
    let change = |f: fn(&web_sys::HtmlInputElement) -> Change| {
        let (choice, copied) = (choice.dispatcher(), copied.clone());
        Callback::from(move |e: Event| {
            copied.set(None);
            choice.dispatch(f(&e.target_unchecked_into()));
        })
    };
    let on_theme = {
        let (choice, copied) = (choice.dispatcher(), copied.clone());
        Callback::from(move |e: Event| {
            let select: web_sys::HtmlSelectElement = e.target_unchecked_into();
            copied.set(None);
            choice.dispatch(Change::Theme(match select.value().as_str() {
                "light" => Theme::Light,
                "dark" => Theme::Dark,
                _ => Theme::Auto,
            }));
        })
    };
    let c = &choice.0;
    let show_radio = |show: Show,
                      value: &'static str,
                      key: Key,
                      f: fn(&web_sys::HtmlInputElement) -> Change| {
        html! {
            <label class="share-choice">
                <input type="radio" name="share-show" {value} checked={c.show == show} onchange={change(f)} />
                { t.t(key) }
            </label>
        }
    };
    let control_box = |control: &'static str| {
        let on_change = {
            let (choice, copied) = (choice.dispatcher(), copied.clone());
            Callback::from(move |e: Event| {
                let input: web_sys::HtmlInputElement = e.target_unchecked_into();
                copied.set(None);
                choice.dispatch(Change::Control(control, input.checked()));
            })
        };
        html! {
            <label class="share-choice">
                <input type="checkbox" name="share-control" value={control}
                       checked={c.controls.contains(control)} onchange={on_change} />
                { t.t_named(&format!("control_{control}")) }
            </label>
        }
    };
    let themes = [
        (Theme::Auto, "auto", k::SHARE_THEME_AUTO),
        (Theme::Light, "light", k::SHARE_THEME_LIGHT),
        (Theme::Dark, "dark", k::SHARE_THEME_DARK),
    ];
    html! {
        <div class="share-options">
            <fieldset>
                <legend>{ t.t(k::SHARE_SHOW) }</legend>
                { show_radio(Show::Section, "section", k::SHARE_SHOW_SECTION, |_| Change::Show(Show::Section)) }
                { show_radio(Show::Scenario, "scenario", k::SHARE_SHOW_SCENARIO, |_| Change::Show(Show::Scenario)) }
                { show_radio(Show::Quiz, "quiz", k::SHARE_SHOW_QUIZ, |_| Change::Show(Show::Quiz)) }
                if has_lab {
                    { show_radio(Show::Lab, "lab", k::SHARE_SHOW_LAB, |_| Change::Show(Show::Lab)) }
                }
            </fieldset>
            <fieldset>
                <legend>{ t.t(k::SHARE_CONTROLS) }</legend>
                { for CONTROLS.into_iter().map(control_box) }
            </fieldset>
            <label for="share-theme">{ t.t(k::SHARE_THEME) }</label>
            <select id="share-theme" onchange={on_theme}>
                { for themes.into_iter().map(|(theme, value, key)| html! {
                    <option {value} selected={c.theme == theme}>{ t.t(key) }</option>
                }) }
            </select>
        </div>
    }
}
