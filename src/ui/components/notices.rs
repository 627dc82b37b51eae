use crate::lesson::content::Lang;
use crate::lesson::i18n::{k, Texts};
use crate::lesson::progress::Discarded;
use crate::lesson::state::Notice;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct NoticesProps {
    pub notices: Vec<Notice>,
    pub lang: Lang,
    pub on_dismiss: Callback<usize>,
}

/// What a notice says, in the reader's language.
pub fn notice_text(t: &Texts, n: &Notice) -> String {
    match n {
        Notice::ProgressDiscarded(Discarded::Corrupt) => t.t(k::NOTICE_PROGRESS_CORRUPT),
        Notice::ProgressDiscarded(Discarded::NewerVersion(_)) => t.t(k::NOTICE_PROGRESS_NEWER),
        Notice::StorageUnavailable => t.t(k::NOTICE_STORAGE_UNAVAILABLE),
        Notice::Imported => t.t(k::NOTICE_IMPORTED),
        Notice::ImportFailed => t.t(k::NOTICE_IMPORT_FAILED),
        Notice::ProgressReset => t.t(k::NOTICE_PROGRESS_RESET),
        Notice::LanguageUnavailable(lang) => t.fmt(
            k::NOTICE_LANGUAGE_UNAVAILABLE,
            &[("lang", lang.native_name().into())],
        ),
    }
}

/// Page-wide notices the learner should see (progress reset, storage blocked), announced politely.
pub fn notices(props: &NoticesProps) -> Html {
    let t = Texts::new(props.lang);
    html! {
        <div class="notices" role="status" aria-live="polite">
            { for props.notices.iter().enumerate().map(|(i, n)| {
                let text = notice_text(&t, n);
                let on_dismiss = props.on_dismiss.clone();
                html! {
                    <div class="notice">
                        <p>{ text }</p>
                        <button type="button" onclick={Callback::from(move |_| on_dismiss.emit(i))}>{ t.t(k::DISMISS) }</button>
                    </div>
                }
            }) }
        </div>
    }
}
