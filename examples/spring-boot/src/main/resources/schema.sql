create table if not exists accounts (
    id            bigserial primary key,
    email         text not null unique,
    referral_code text not null unique,
    credits       int not null default 0,
    welcomed_at   timestamptz
);
